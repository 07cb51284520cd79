"""The event away: its check-out to a laptop, the day there, and its return
(DOMAIN.md "The event away")."""
