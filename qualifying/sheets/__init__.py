"""The qualifying paper forms (§1-0-2, §1-3-1): the table sheet and the drivers' cards."""
