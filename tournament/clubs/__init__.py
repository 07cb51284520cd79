"""Clubs and their people (DOMAIN.md "Clubs and who may do what"): a club owns its
championships and the circuits it made; its members have one role each."""
