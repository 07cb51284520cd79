"""Race weather (§2-0-1, §3-2): its rules, table by table, and its draws."""
