"""Points and standings: above the results they read (races), below the URL and API roots."""
