"""Formula Dé quick rules: the pure rules (laps, the standard car)."""
