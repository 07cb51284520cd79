"""``make venue``'s cache without Redis: diskcache's Django backend, kept open.

Django closes every cache at the end of each request; diskcache then closes its SQLite
connections, and the next request opens them again (a few milliseconds each time, more
than a stored page takes to serve). Its connections belong to the thread that opened them,
and gunicorn's threads live as long as their worker: they stay open here.
"""

from __future__ import annotations

from typing import Any

from diskcache import DjangoCache


class SharedCache(DjangoCache):  # type: ignore[misc]
    def close(self, **kwargs: Any) -> None:
        """Not at the end of each request: the connections serve the thread's next one."""
