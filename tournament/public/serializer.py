"""What the web processes keep in Redis, as JSON instead of pickle.

Django's Redis cache pickles every value, and unpickling runs whatever the bytes say: anyone
able to write into the Redis (a server without a password, a neighbour on its network) could
run code in Paddock's processes by planting a value under a page's key. JSON only ever
gives back data. Integers stay raw, as Django stores them (``incr`` works on them); bytes
(the compressed pages) travel as base64 under a marker key.
"""

from __future__ import annotations

import base64
import json
from typing import Any

_BYTES = "__bytes_b64__"


def _encode(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {_BYTES: base64.b64encode(bytes(value)).decode("ascii")}
    raise TypeError(f"{type(value).__name__} is not kept in the cache")


def _decode(value: dict[str, Any]) -> Any:
    if len(value) == 1 and _BYTES in value:
        return base64.b64decode(value[_BYTES])
    return value


class JSONSerializer:
    """Django's ``RedisSerializer`` interface (``OPTIONS["serializer"]``)."""

    def __init__(self, protocol: int | None = None) -> None:
        pass

    def dumps(self, obj: Any) -> bytes | int:
        if type(obj) is int:  # as Django's: a bare integer, so that Redis can count on it
            return obj
        return json.dumps(obj, default=_encode, separators=(",", ":")).encode()

    def loads(self, data: bytes) -> Any:
        try:
            return int(data)
        except ValueError:
            return json.loads(data, object_hook=_decode)
