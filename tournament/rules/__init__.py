"""The ground's pure rules (floor 0): plain values in and out, no Django, no database;
every floor may read them. The stopwatch's reading, the scales of a championship (points
presets) and of a circuit (the d20 weather scale), the skill model of the ratings."""
