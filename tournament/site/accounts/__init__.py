"""Who gets in: the account pages (login, logout, password change), organisers' API tokens
(their hash), the demo's and common passwords refused, and make venue's organiser pages on
the laptop only.
"""
