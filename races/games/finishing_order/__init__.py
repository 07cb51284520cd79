"""The finishing-order game: any racing game whose table result is the crossing order
(Heat: Pedal to the Metal, Flamme Rouge, Ave Caesar, a house game), named by its organisers
(DOMAIN.md and API.md "Any racing game"): rules, its registry entry, services, API."""
