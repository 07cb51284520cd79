"""Cannes–Monaco 1925: the pure rules; its table sheet is ``races.games.table_sheet``."""
