"""Race tables, grids, weather, stands, configurations and results (issue "Race day")."""
