"""Progress of the venue's long steps, said as they go: the first restore checked a backup
for 20 s without a word, and "a few seconds" of compression took 22 (issue 32).

``Steps`` says each step as it starts and how long the last one took; ``collected`` runs
``collectstatic`` and says how far it is, by tenths, from the lines it writes per file.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.utils.translation import gettext as _

Say = Callable[[str], None]


class Steps:
    """``say`` each step ("Checking the backup…"), then "done in N s" when the next begins
    or ``done()`` is called."""

    def __init__(self, say: Say) -> None:
        self.say = say
        self.started: float | None = None

    def step(self, text: str) -> None:
        self.done()
        self.say(text)
        self.started = time.monotonic()

    def done(self) -> None:
        if self.started is not None:
            seconds = f"{time.monotonic() - self.started:.0f}"
            self.say(_("  done in %(seconds)s s.") % {"seconds": seconds})
            self.started = None


class _Counted:
    """A stream for ``collectstatic``'s lines: each file post-processed moves the count.
    WhiteNoise names every file once hashed (``total`` of them: each tenth is said), then
    each compressed copy it writes (gzip, brotli), counted by hundreds: how many it will
    write is not known before."""

    def __init__(self, total: int, say: Say) -> None:
        self.total, self.say = max(total, 1), say
        self.seen = self.shown = 0

    def write(self, text: str) -> int:
        for _line in range(text.count("Post-processed")):
            self.seen += 1
            if self.seen <= self.total:
                tenth = self.seen * 10 // self.total
                if tenth > self.shown:
                    self.shown = tenth
                    self.say(f"  named by their content: {tenth * 10} %")
            elif (self.seen - self.total) % 100 == 0:
                self.say(f"  compressed: {self.seen - self.total} copies")
        return len(text)

    def flush(self) -> None:
        pass


def collected(say: Say) -> None:
    """``collectstatic``, its progress said by tenths of the static files."""
    total = sum(1 for finder in finders.get_finders() for _found in finder.list([]))
    call_command("collectstatic", interactive=False, verbosity=2, stdout=_Counted(total, say))
