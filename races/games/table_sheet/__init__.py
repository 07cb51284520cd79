"""The sheet at a table that Cannes–Monaco and Racetrack share: services, pages, API, PDF."""
