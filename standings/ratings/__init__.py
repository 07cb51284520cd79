"""Skill ratings per player and game family (issue 22): the pure rules (openskill's
Plackett–Luce), their full recompute, the task that runs it, the ranking page and API."""
