"""gunicorn's configuration under ``make venue`` (``--config python:paddock.venue.watchdog``):
a watchdog in the arbiter that ends the server when the command that started it is gone, and
logs without a link's secret.

On Linux the parent-death signal already does it (``paddock/venue/serving.py``); this is
the fallback elsewhere (macOS has no ``prctl``): the arbiter's parent changes when the
command dies (the orphan is adopted), and the arbiter then stops as on SIGTERM, its requests
ended. Gunicorn's workers already stop when their arbiter is gone.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from gunicorn.glogging import Logger

from tournament.site.logs import LinkSecretsRedacted

#: Seconds between two looks at the arbiter's parent.
EVERY = 1.0


def watch(
    parent: int,
    *,
    getppid: Callable[[], int] = os.getppid,
    stop: Callable[[], None] = lambda: os.kill(os.getpid(), signal.SIGTERM),
    every: float = EVERY,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Return once ``parent`` is no longer this process's parent, after asking it to stop."""
    while getppid() == parent:
        sleep(every)
    stop()


def when_ready(server: Any) -> None:
    """gunicorn's hook, in the arbiter once it listens: the watchdog started."""
    parent = os.environ.get("PADDOCK_VENUE_PID", "")
    if parent.isdigit():
        threading.Thread(target=watch, args=(int(parent),), name="watchdog", daemon=True).start()


class SecretsMaskedLogger(Logger):
    """gunicorn's logs with each link's secret masked, as Django's are (``LinkSecretsRedacted``
    of ``tournament.site.logs``): its access log, when one is asked (``--access-logfile``),
    holds every request's path and referrer whatever the status, and its error log the path
    of a request that failed. The filter sits on the loggers, so every handler (a file,
    syslog, a ``logconfig_dict``'s) writes the masked line."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            if not any(isinstance(each, LinkSecretsRedacted) for each in log.filters):
                log.addFilter(LinkSecretsRedacted())


logger_class = SecretsMaskedLogger
