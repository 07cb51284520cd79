"""Sanctions the organisers decide (§1-2-3): their rules, services, page and API."""
