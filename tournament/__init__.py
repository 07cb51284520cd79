"""The ground: the championship core every app stands on (ARCHITECTURE.md)."""
