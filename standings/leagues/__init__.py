"""A season across clubs (DOMAIN.md "A season across clubs"): a league, owned by one club,
counts events of several clubs' championships (its rounds), ranks each player once and
crowns a club by each club's best players per round."""
