"""The grid: allocation to race tables (§2-0-1), swaps, referee links, stands in grid order, car
configurations and a table's start.
"""
