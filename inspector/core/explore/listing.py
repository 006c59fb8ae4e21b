"""List a server's tools, resources, resource templates or prompts, following ``nextCursor`` pagination.

Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination. A cursor is
opaque: we send back exactly what the server gave. A server that repeats a cursor, or pages forever, is
stopped with a sentence instead of looping (:class:`ListingError`); each page's request is an ordinary
request of the session, so every page is a row of the timeline.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from inspector.core.explore.caching import CacheHints, hints_of
from inspector.core.session.outcomes import result_of
from inspector.core.session.session import DEFAULT_REQUEST_TIMEOUT, Session

#: What can be listed: the kind's name, its method, the result field that holds the items, and the server
#: capability that announces it (a server that does not declare it is not asked).
LISTS: dict[str, tuple[str, str, str]] = {
    "tools": ("tools/list", "tools", "tools"),
    "resources": ("resources/list", "resources", "resources"),
    "templates": ("resources/templates/list", "resourceTemplates", "resources"),
    "prompts": ("prompts/list", "prompts", "prompts"),
}
#: the list_changed notification that makes each kind stale
LIST_CHANGED: dict[str, str] = {
    "notifications/tools/list_changed": "tools",
    "notifications/resources/list_changed": "resources",
    "notifications/prompts/list_changed": "prompts",
}
#: pages followed before giving up on a server that never stops paging: 1,000,000 tools at 100 a page (a
#: repeated cursor stops a loop at once; this only ends a server that makes up new cursors forever)
MAX_PAGES = 10_000
#: the longest nextCursor sent back: a cursor is an opaque token (a few hundred bytes in the SDKs); one of
#: megabytes, new on every page, would make us send and receive gigabytes before MAX_PAGES ends it
MAX_CURSOR_BYTES = 1 << 20


class ListingError(Exception):
    """A list could not be had: the server answered with an error, or paged badly. ``str()`` is a sentence."""

    def __init__(self, sentence: str, error: Any = None) -> None:
        super().__init__(sentence)
        self.error = error  #: the JSON-RPC error object, when the server answered with one


@dataclass(frozen=True)
class Listing:
    """One kind's items (every page, in order), how many pages it took, and the last page's caching hints
    (2026-07-28 ``ttlMs``, ``cacheScope``: :mod:`inspector.core.explore.caching`)."""

    kind: str
    items: list[dict[str, Any]]
    pages: int
    hints: CacheHints | None = None


def listed_in(answers: Iterable[tuple[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """What the last listing of each kind held, from recorded answers (``(method, result)`` in the order they
    came, as an opened capture has them): every page of it, not only its last one. A page whose result has a
    ``nextCursor`` is continued by the next answer to its method; an answer after a last page starts a new
    listing. Kinds no answer listed are left out; items that are not objects are dropped."""
    by_method = {method: (kind, field) for kind, (method, field, _) in LISTS.items()}
    found: dict[str, list[dict[str, Any]]] = {}
    continued: set[str] = set()
    for method, result in answers:
        kind, field = by_method.get(method, ("", ""))
        if not kind or not isinstance(result, dict) or not isinstance(result.get(field), list):
            continue
        page = [item for item in result[field] if isinstance(item, dict)]
        found[kind] = (found[kind] if kind in continued else []) + page
        if result.get("nextCursor"):
            continued.add(kind)
        else:
            continued.discard(kind)
    return found


async def list_all(session: Session, kind: str, *, timeout: float = DEFAULT_REQUEST_TIMEOUT) -> Listing:
    """Every item of ``kind`` (``tools``, ``resources``, ``templates``, ``prompts``), all pages.

    Raises :class:`ListingError` (a JSON-RPC error answer, a result without the list, a repeated cursor, a
    cursor over :data:`MAX_CURSOR_BYTES`, more than :data:`MAX_PAGES` pages) and the session's own errors
    (RequestTimeout, TransportClosed).
    """
    method, field, _capability = LISTS[kind]
    items: list[dict[str, Any]] = []
    seen: set[bytes] = set()  # digests: a server may send megabytes of cursor a page
    cursor: str | None = None
    for page in range(1, MAX_PAGES + 1):
        response = await session.request(method, {"cursor": cursor} if cursor is not None else None, timeout=timeout)
        result, error = result_of(response)
        if error is not None:
            message = error.get("message") if isinstance(error, dict) else None
            code = error.get("code") if isinstance(error, dict) else None
            raise ListingError(f"the server answered {method} with an error: {message or '(no message)'} "
                               f"(code {code})", error)
        if not isinstance(result, dict) or not isinstance(result.get(field), list):
            raise ListingError(f"the server's {method} result has no {field} list")
        items.extend(item for item in result[field] if isinstance(item, dict))
        next_cursor = result.get("nextCursor")
        if next_cursor is None:
            return Listing(kind, items, page, hints_of(result))
        if not isinstance(next_cursor, str):
            raise ListingError(f"the server's {method} gave a nextCursor that is not a string "
                               f"({type(next_cursor).__name__}); stopped after {_pages(page)}")
        if len(next_cursor) > MAX_CURSOR_BYTES // 4 and len(next_cursor.encode("utf-8", "surrogatepass")) \
                > MAX_CURSOR_BYTES:
            raise ListingError(f"the server's {method} gave a nextCursor of {len(next_cursor):,} characters, over "
                               f"the {MAX_CURSOR_BYTES >> 20} MiB a cursor may have here; stopped after {_pages(page)}")
        digest = hashlib.blake2b(next_cursor.encode("utf-8", errors="surrogatepass"), digest_size=16).digest()
        if digest in seen:
            raise ListingError(f"the server's {method} gave the same nextCursor twice ({next_cursor[:40]!r}); "
                               f"stopped after {_pages(page)} so as not to loop")
        seen.add(digest)
        cursor = next_cursor
    raise ListingError(f"the server's {method} still had more after {MAX_PAGES} pages; stopped there")


def _pages(count: int) -> str:
    return "1 page" if count == 1 else f"{count:,} pages"


def declared(capabilities: Any, kind: str) -> bool:
    """Whether the server's capabilities announce ``kind`` (an older server that sent none is asked anyway)."""
    if not isinstance(capabilities, dict) or not capabilities:
        return True
    return LISTS[kind][2] in capabilities
