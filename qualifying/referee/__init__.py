"""A qualifying table's referee: its pages, opened from the referee link, and a run's history in
words.
"""
