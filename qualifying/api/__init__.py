"""JSON API v1, Qualifying (API.md): sessions, tables, runs, classifications and the d20 draw."""
