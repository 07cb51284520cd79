"""The games the server knows, as the core reads them: one registry (``registry.py``), no
game named here but Formula Dé, the main game. Every other game registers itself from its
own package under ``races/games/`` when Django starts."""
