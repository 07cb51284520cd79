"""``make bench``: measure Paddock at the size of a national championship (not a test).

``bench.run`` picks and recreates the bench's own database, builds a seeded synthetic
championship (``bench.builder``), times the costly parts (``bench.measures``), drives
gunicorn with a hundred referees (``bench.load``) and writes ``bench/results.json``.
"""
