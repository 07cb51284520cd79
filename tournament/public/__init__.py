"""The players' pages under a publication spike: change counters, the public cache, the cache make
venue shares, the player on this phone, and the pages built ahead.
"""
