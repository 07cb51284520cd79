"""The skill model of the ratings (floor 0): openskill's Plackett–Luce with its parameters,
no database here. The ratings (``standings.ratings.rules``) rate with it; a race table's
favourites (``tournament.players.odds``, on the ground) read the chances from the same model.
"""

from __future__ import annotations

from openskill.models import PlackettLuce

#: The library's defaults, named (DOMAIN.md, "Seasons and ratings").
MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = MU / 300
MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)
