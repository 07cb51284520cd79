"""Players: one person across championships, seasons and games (a championship's driver
points to its player), the changes race control makes to them (merge, split), and their
ratings per game family.
"""
