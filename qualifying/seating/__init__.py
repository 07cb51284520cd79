"""Qualifying tables: who sits where (§1-0-4): the pure rules and their writes."""
