"""The guide for every role, served by Paddock itself at /guide/ (issue 41, item 6)."""
