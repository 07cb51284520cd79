"""Which query parameters a page reads: ``QueryDict``'s reads recorded while a request runs.

A key read (``get``, ``[]``, ``in``…) names its parameter; a walk of the whole query by the
page's own code reads them all (``ALL``). What only copies the values as text, into a link
that keeps the query (django-tables2's tags, a template) or into the public cache's key,
parses none: it reads no parameter. A query being built, or a copy, is not the request's.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.http import QueryDict

#: Read through these, a ``QueryDict`` is read whole.
WHOLE = ("__iter__", "items", "keys", "values", "lists", "dict", "urlencode", "copy", "__copy__")
#: Read through these, one key (the first argument).
ONE_KEY = ("__getitem__", "get", "getlist", "__contains__", "pop", "setdefault")
ALL = "*"
#: Where a walk of the query copies its values as text (links, the cache's key): no read.
COPIED_AS_TEXT = (
    "/django_tables2/templatetags/",
    "/django/template/",
    "/tournament/public/cache.py",
)
#: QueryDict's own code, between a caller and the method it called.
QUERYDICT_CODE = ("/django/http/request.py", "/django/utils/datastructures.py")


def copied_as_text() -> bool:
    """True when the walk under way was asked by code that only copies values as text."""
    frame = sys._getframe(2)  # the caller of the recording method
    while frame is not None and frame.f_code.co_filename.endswith(QUERYDICT_CODE):
        frame = frame.f_back
    caller = frame.f_code.co_filename if frame is not None else ""
    return any(part in caller for part in COPIED_AS_TEXT)


@contextmanager
def parameters_read() -> Iterator[set[str]]:
    """The names of the query parameters read while inside (``ALL`` for the whole query)."""
    read: set[str] = set()

    def recording(name: str, whole: bool) -> Any:
        original = getattr(QueryDict, name)

        def method(self: QueryDict, *args: Any, **kwargs: Any) -> Any:
            # Not a query being built or a copy, nor a read that copies values as text.
            if not self._mutable and not copied_as_text():
                read.add(ALL if whole or not args else str(args[0]))
            return original(self, *args, **kwargs)

        return method

    patched = {name: QueryDict.__dict__.get(name) for name in WHOLE + ONE_KEY}
    for name in WHOLE + ONE_KEY:
        setattr(QueryDict, name, recording(name, name in WHOLE))
    try:
        yield read
    finally:
        for name, original in patched.items():
            if original is None:
                delattr(QueryDict, name)
            else:
                setattr(QueryDict, name, original)
