"""Caching hints of 2026-07-28 results: ``ttlMs`` and ``cacheScope`` on list results, ``resources/read`` and
``server/discover`` (https://modelcontextprotocol.io/specification/2026-07-28/schema#cacheableresult, SEP-2549).

``ttlMs`` is how long a client may consider the result fresh, as HTTP's ``max-age``: 0 means immediately stale (the
client "MAY re-fetch every time the result is needed"); ``cacheScope`` ``public`` lets any cache share it across
authorization contexts, ``private`` only within the one that produced it. :func:`hints_of` reads them,
:func:`describe` says them in words (the detail pane, the Explorer), and :func:`expiry_delay` is when a list the
Explorer shows expires: it lists it again then, never sooner, and not at all for a list that is stale at once
(listing it again at once would be a loop; it is listed again when it changes or is asked for). No I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.core.present.annotations import register as register_annotator

#: The shortest expiry the Explorer acts on: a server asking for a few milliseconds is listed once a second at
#: most (the same bound as list_changed, inspector/core/explore/relist.py).
MIN_EXPIRY = 1.0


@dataclass(frozen=True)
class CacheHints:
    ttl_ms: int | None
    scope: str | None


def hints_of(result: Any) -> CacheHints | None:
    """The caching hints of a result object, or None when it carries neither."""
    if not isinstance(result, dict) or ("ttlMs" not in result and "cacheScope" not in result):
        return None
    ttl = result.get("ttlMs")
    scope = result.get("cacheScope")
    return CacheHints(ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl >= 0 else None,
                      scope if isinstance(scope, str) else None)


def describe(hints: CacheHints) -> str:
    """The hints in words: ``fresh for 60 s, public (any cache may share it)``."""
    if hints.ttl_ms is None:
        fresh = "no valid ttlMs"
    elif hints.ttl_ms == 0:
        fresh = "stale at once (ttlMs 0: fetched again whenever needed)"
    else:
        fresh = f"fresh for {_seconds(hints.ttl_ms)}"
    scope = {"public": "public (any cache may share it across authorization contexts)",
             "private": "private (cached only for this authorization context)"}.get(hints.scope or "",
                                                                                 "no cacheScope")
    return f"{fresh}, {scope}"


def short(hints: CacheHints) -> str:
    """The hints in a few words: ``fresh 60 s, public``."""
    fresh = "?" if hints.ttl_ms is None else "stale" if hints.ttl_ms == 0 else f"fresh {_seconds(hints.ttl_ms)}"
    return f"{fresh}, {hints.scope or 'no scope'}"


def expiry_delay(hints: CacheHints | None) -> float | None:
    """Seconds after a listing's answer when it expires and is listed again (None: never by the clock)."""
    if hints is None or not hints.ttl_ms:
        return None
    return max(MIN_EXPIRY, hints.ttl_ms / 1000)


def _seconds(ttl_ms: int) -> str:
    seconds = ttl_ms / 1000
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 7200:
        return f"{seconds / 60:g} min"
    return f"{seconds / 3600:g} h"


def cache_notes(message: dict[str, Any]) -> list[str]:
    """What the detail pane says of a message's caching hints (:mod:`inspector.core.present.annotations`)."""
    hints = hints_of(message.get("result"))
    return [] if hints is None else [f"cache: {describe(hints)}"]


register_annotator(cache_notes, ("ttlMs", "cacheScope"))
