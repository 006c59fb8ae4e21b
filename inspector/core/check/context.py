"""What every probe of ``mcp-inspector check`` works with: :class:`Context` (one session to the server under
check, its bound, and the results so far), :class:`CheckOptions`, and the small readers of events the probes
share. The probes themselves are :mod:`inspector.core.check.probes` (JSON-RPC and lifecycle),
:mod:`inspector.core.check.catalog_probes` (tools, resources, prompts, pages) and
:mod:`inspector.core.check.http_probes` (the HTTP transport's rules).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from inspector.core.check.checks import (
    BY_ID,
    FAILED,
    INCOMPLETE,
    MODERN,
    NOT_APPLICABLE,
    PASSED,
    Result,
)
from inspector.core.check.kept import KeptEvents
from inspector.core.explore.listing import LISTS, ListingError, list_all
from inspector.core.session.outcomes import RequestTimeout, ServerInfo, result_of
from inspector.core.session.session import Session
from inspector.core.transports.base import TransportError
from inspector.core.waiting import wait_for
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind

#: A revision no server speaks, to see how a server turns an unknown one down.
UNSUPPORTED_REVISION = "1999-01-01"
#: An Origin no local server should trust: a web page's (``.invalid`` never resolves, RFC 2606).
FOREIGN_ORIGIN = "http://dns-rebinding.invalid"
#: A Host no local server should answer to: the name a DNS-rebinding page is served under (the suite's own).
FOREIGN_HOST = "evil.example.com"
#: A method no revision defines.
UNKNOWN_METHOD = "mcp-inspector/no-such-method"
#: Resources read, prompts got and tools called at most per session: enough to find a broken one without
#: turning a check of a server with thousands into a crawl.
MAX_ITEMS = 20
#: The ids of the id probe: a string and a number, neither one the session would pick.
STRING_ID = "check-id-7"
NUMBER_ID = 987654321
#: After the liveness request that follows a batch was answered, how long the batch's answers may still take
#: (a server that answers out of order); the liveness answer already bounds a server that answers in order.
BATCH_GRACE = 1.0

Probe = Callable[["Context"], Awaitable[None]]


@dataclass
class CheckOptions:
    """What the user allowed: calling tools (read-only ones, or all)."""

    call_tools: bool = False
    call_all_tools: bool = False
    #: how the user allows each, as the sentences of a skipped check name it (the window has no such options)
    call_tools_hint: str = "--call-tools"
    call_all_tools_hint: str = "--call-all-tools"


class Context:
    """One session under check: its server, revision, transport kind, and the results so far."""

    def __init__(self, session: Session, info: ServerInfo, *, timeout: float, http: bool, url: str = "",
                 options: CheckOptions | None = None, kept: KeptEvents | None = None) -> None:
        self.session = session
        #: the session's events that are kept in memory (a list of them all when the session keeps them all)
        self.kept = kept
        self.info = info
        self.revision = info.protocol_version or ""
        self.timeout = timeout
        self.http = http
        self.url = url
        self.options = options or CheckOptions()
        self.results: list[Result] = []
        self._listings: dict[str, Any] = {}
        self._undeclared: set[str] = set()  #: kinds whose capability the server does not declare
        #: the error responses the raw HTTP probes got: (the request's id, the error's id, its seq), judged by
        #: the error-ids-echoed check after them
        self.error_ids: list[tuple[Any, Any, int]] = []

    @property
    def modern(self) -> bool:
        return self.revision == MODERN

    # -- results -------------------------------------------------------------------------------------

    def add(self, check_id: str, status: str, sentence: str, seqs: list[int] | tuple[int, ...] = ()) -> None:
        """A result for ``check_id``; the first one stands (a check decided before its probe ran stays so)."""
        if self.judged(check_id):
            return
        self.results.append(Result(BY_ID[check_id], status, sentence,
                                   tuple(sorted({s for s in seqs if s})), self.revision or None))

    def passed(self, check_id: str, sentence: str, seqs: list[int] | tuple[int, ...] = ()) -> None:
        self.add(check_id, PASSED, sentence, seqs)

    def failed(self, check_id: str, sentence: str, seqs: list[int] | tuple[int, ...] = ()) -> None:
        self.add(check_id, FAILED, sentence, seqs)

    def not_applicable(self, check_id: str, sentence: str) -> None:
        self.add(check_id, NOT_APPLICABLE, sentence)

    def incomplete(self, check_id: str, sentence: str, seqs: list[int] | tuple[int, ...] = ()) -> None:
        """The rule applies but could not be tested (``sentence``: why)."""
        self.add(check_id, INCOMPLETE, sentence, seqs)

    def unlisted(self, check_id: str, kind: str, sentence: str, seqs: list[int] | tuple[int, ...] = ()) -> None:
        """``check_id`` needs the list of ``kind``, which :meth:`listing` could not have: not applicable when the
        server does not declare it, incomplete when it does and the list failed (an error, no answer)."""
        if kind in self._undeclared:
            self.not_applicable(check_id, sentence)
        else:
            self.incomplete(check_id, f"{sentence}, so this could not be tested", seqs)

    def judged(self, check_id: str) -> bool:
        return any(r.check.id == check_id for r in self.results)

    # -- the wire ------------------------------------------------------------------------------------

    def mark(self) -> int:
        """The seq of the last event so far: :meth:`since` gives what came after it."""
        return self.session.last_seq

    def since(self, mark: int) -> list[Event]:
        if self.kept is not None:
            return self.kept.since(mark)
        return self.session.events[mark:]

    @property
    def events(self) -> list[Event]:
        return self.kept.events if self.kept is not None else self.session.events

    async def ask(self, method: str, params: Any = None, *, msg_id: Any = None, meta: bool = True) -> Event:
        """A request, answered within the timeout (RequestTimeout, TransportClosed otherwise)."""
        return await self.session.request(method, params, timeout=self.timeout, msg_id=msg_id, inject_meta=meta)

    async def alive(self) -> tuple[bool, str, list[int]]:
        """Whether the server still answers (ping; server/discover in 2026-07-28, which has no ping): the
        sentence and the seqs of the exchange."""
        method = "server/discover" if self.modern else "ping"
        mark = self.mark()
        try:
            response = await self.ask(method)
        except TransportError as exc:
            return False, f"then it did not answer {method}: {exc}", seqs_of(self.since(mark))
        return True, f"it still answers {method}", [request_seq(response), response.seq]

    async def wait_for(self, mark: int, predicate: Callable[[Event], bool], timeout: float) -> Event | None:
        """The first event after ``mark`` that ``predicate`` accepts, waiting at most ``timeout``; None if none."""
        found = next((e for e in self.since(mark) if predicate(e)), None)
        if found is not None:
            return found
        future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()

        def listen(events: list[Event]) -> None:
            for event in events:
                if predicate(event) and not future.done():
                    future.set_result(event)

        self.session.listeners.append(listen)
        try:
            return await wait_for(future, timeout)
        except TimeoutError:
            return None
        finally:
            self.session.listeners.remove(listen)

    async def listing(self, kind: str) -> tuple[list[dict[str, Any]] | None, str, list[int]]:
        """Every item of ``kind`` (cached per session): the items (None when the server does not list it, or
        failed to), a sentence, and the seqs of the list exchanges."""
        if kind in self._listings:
            cached: tuple[list[dict[str, Any]] | None, str, list[int]] = self._listings[kind]
            return cached
        method, _field, capability = LISTS[kind]
        if capability not in self.info.capabilities:
            self._undeclared.add(kind)
            found: tuple[list[dict[str, Any]] | None, str, list[int]] = (
                None, f"the server does not declare the {capability} capability", [])
        else:
            mark = self.mark()
            try:
                listing = await list_all(self.session, kind, timeout=self.timeout)
                found = listing.items, f"{method} listed {len(listing.items)}", message_seqs(self.since(mark))
            except ListingError as exc:
                found = None, str(exc), message_seqs(self.since(mark))
            except RequestTimeout as exc:
                found = None, f"{method} got no answer: {exc}", message_seqs(self.since(mark))
        self._listings[kind] = found
        return found


def seqs_of(events: list[Event]) -> list[int]:
    return [e.seq for e in events if e.kind in (Kind.MESSAGE, Kind.HTTP, Kind.FRAMING_ERROR, Kind.LIFECYCLE)]


def message_seqs(events: list[Event]) -> list[int]:
    return [e.seq for e in events if e.kind == Kind.MESSAGE]


def request_seq(response: Event) -> int:
    reply_to = response.data.get("reply_to")
    return reply_to if isinstance(reply_to, int) else 0


def error_of(response: Event) -> dict[str, Any] | None:
    _, error = result_of(response)
    return error if isinstance(error, dict) else ({"code": None, "message": str(error)} if error is not None else None)


def code_text(error: dict[str, Any]) -> str:
    """``error -32601 (Method not found)``; an error without a code or a message says so."""
    message = " ".join(str(error.get("message") or "").split())
    code = error.get("code")
    what = f"error {code}" if code is not None else "an error without a code"
    return f"{what} ({message[:117] + '...' if len(message) > 120 else message})" if message else what


def got(event: Event | None) -> str:
    """What an HTTP probe got: ``HTTP 200``, or no answer and why (a status is never printed as None)."""
    status = event.data.get("status") if event is not None else None
    if isinstance(status, int):
        return f"HTTP {status}"
    error = event.data.get("error") if event is not None else None
    return f"no HTTP answer ({error})" if error else "no HTTP answer"


def exchange_seqs(response: Event) -> list[int]:
    return [request_seq(response), response.seq]


def is_response(event: Event) -> bool:
    return (event.kind == Kind.MESSAGE and event.dir == Direction.S2C and event.rpc is not None
            and event.rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR))


def responses_in(event: Event) -> list[dict[str, Any]]:
    """The responses a server message carries (a batch's items too)."""
    try:
        obj = event.json()
    except (ValueError, RecursionError):
        return []
    items = obj if isinstance(obj, list) else [obj]
    return [i for i in items if isinstance(i, dict) and ("result" in i or "error" in i)]
