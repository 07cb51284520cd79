"""A player's career: every season, event, qualifying, table place and points, and the
rating over time (its chart geometry in ``chart.py``, pure); the page and the API. Reads
qualifying, results and standings: the standings floor."""
