"""Rallyman: a rally timed stage by stage (rules, services, pages, API, the P.C. sheet)."""
