"""The probes of ``mcp-inspector check``: each sends what shows one or more checks, then judges the answer.

A probe is ``async def probe(ctx) -> None``; it adds a :class:`~inspector.core.check.checks.Result` for each
check it judges through :class:`Context` (``ctx.passed``, ``ctx.failed``, ``ctx.not_applicable``,
``ctx.incomplete``), naming the
seq numbers of the events that show it. Everything goes through the session (``request``, ``send_object``,
``send_raw``, ``http_probe``), so every byte is in the session's capture. Each wait is bounded by the
context's ``timeout``; the runner (:mod:`inspector.core.check.runner`) bounds each probe as a whole too, and
turns a server that went away into "incomplete" for what is left.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

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
from inspector.core.protocol.names import name_problems, shown_name
from inspector.core.schemas.validate import first_violation, schema_problem
from inspector.core.session.outcomes import RequestTimeout, ServerInfo, result_of
from inspector.core.session.session import Session
from inspector.core.transports.base import TransportClosed, TransportError
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.ids import IdKey, id_key, same_id

#: A revision no server speaks, to see how a server turns an unknown one down.
UNSUPPORTED_REVISION = "1999-01-01"
#: An Origin no local server should trust: a web page's (``.invalid`` never resolves, RFC 2606).
FOREIGN_ORIGIN = "http://dns-rebinding.invalid"
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
            return False, f"then it did not answer {method}: {exc}", _seqs(self.since(mark))
        return True, f"it still answers {method}", [_request_seq(response), response.seq]

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
            return await asyncio.wait_for(future, timeout)
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
                found = listing.items, f"{method} listed {len(listing.items)}", _message_seqs(self.since(mark))
            except ListingError as exc:
                found = None, str(exc), _message_seqs(self.since(mark))
            except RequestTimeout as exc:
                found = None, f"{method} got no answer: {exc}", _message_seqs(self.since(mark))
        self._listings[kind] = found
        return found


def _seqs(events: list[Event]) -> list[int]:
    return [e.seq for e in events if e.kind in (Kind.MESSAGE, Kind.HTTP, Kind.FRAMING_ERROR, Kind.LIFECYCLE)]


def _message_seqs(events: list[Event]) -> list[int]:
    return [e.seq for e in events if e.kind == Kind.MESSAGE]


def _request_seq(response: Event) -> int:
    reply_to = response.data.get("reply_to")
    return reply_to if isinstance(reply_to, int) else 0


def _error(response: Event) -> dict[str, Any] | None:
    _, error = result_of(response)
    return error if isinstance(error, dict) else ({"code": None, "message": str(error)} if error is not None else None)


def _code_text(error: dict[str, Any]) -> str:
    """``error -32601 (Method not found)``; an error without a code or a message says so."""
    message = " ".join(str(error.get("message") or "").split())
    code = error.get("code")
    what = f"error {code}" if code is not None else "an error without a code"
    return f"{what} ({message[:117] + '...' if len(message) > 120 else message})" if message else what


def _got(event: Event | None) -> str:
    """What an HTTP probe got: ``HTTP 200``, or no answer and why (a status is never printed as None)."""
    status = event.data.get("status") if event is not None else None
    if isinstance(status, int):
        return f"HTTP {status}"
    error = event.data.get("error") if event is not None else None
    return f"no HTTP answer ({error})" if error else "no HTTP answer"


def _exchange(response: Event) -> list[int]:
    return [_request_seq(response), response.seq]


def _is_response(event: Event) -> bool:
    return (event.kind == Kind.MESSAGE and event.dir == Direction.S2C and event.rpc is not None
            and event.rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR))


def _responses_in(event: Event) -> list[dict[str, Any]]:
    """The responses a server message carries (a batch's items too)."""
    try:
        obj = event.json()
    except (ValueError, RecursionError):
        return []
    items = obj if isinstance(obj, list) else [obj]
    return [i for i in items if isinstance(i, dict) and ("result" in i or "error" in i)]


# -- the probes ----------------------------------------------------------------------------------------------


async def probe_ping(ctx: Context) -> None:
    if ctx.modern:
        ctx.not_applicable("ping", "2026-07-28 has no ping")
        return
    try:
        response = await ctx.ask("ping")
    except RequestTimeout as exc:
        ctx.failed("ping", f"no answer to ping: {exc}", _seqs(ctx.since(ctx.mark() - 1)))
        return
    result, error = result_of(response)
    if error is not None:
        ctx.failed("ping", f"the server answered ping with {_code_text(_error(response) or {})}", _exchange(response))
    elif not isinstance(result, dict) or any(k != "_meta" for k in result):
        ctx.failed("ping", f"the server answered ping with {json.dumps(result)[:200]}, not an empty result",
                   _exchange(response))
    else:
        ctx.passed("ping", "ping was answered with {}", _exchange(response))


async def probe_ids(ctx: Context) -> None:
    method = "server/discover" if ctx.modern else "ping"
    seqs: list[int] = []
    problems = []
    for msg_id in (STRING_ID, NUMBER_ID):
        mark = ctx.mark()
        try:
            response = await ctx.ask(method, msg_id=msg_id)
            seqs += _exchange(response)
        except RequestTimeout:
            # the answer may have come with the id changed: pairing could not see it
            near = [e for e in ctx.since(mark) if _is_response(e)]
            seqs += _seqs(ctx.since(mark))
            shown = f"; it sent a response with id {json.dumps(near[0].rpc.id)}" if near and near[0].rpc else ""
            problems.append(f"no response with the id {json.dumps(msg_id)} came within {ctx.timeout:g} s{shown}")
            continue
        echoed = response.rpc.id if response.rpc is not None else None
        if not same_id(echoed, msg_id):
            problems.append(f"the id {json.dumps(msg_id)} came back as {json.dumps(echoed)}")
    if problems:
        ctx.failed("ids-echoed", "; ".join(problems), seqs)
    else:
        ctx.passed("ids-echoed", f"{method} with id {json.dumps(STRING_ID)} and id {NUMBER_ID} were answered with "
                                 "the same ids", seqs)


async def probe_unknown_method(ctx: Context) -> None:
    mark = ctx.mark()
    try:
        response = await ctx.ask(UNKNOWN_METHOD)
    except RequestTimeout:
        text = f"no answer to the unknown method {UNKNOWN_METHOD} within {ctx.timeout:g} s"
        ctx.failed("unknown-method", text, _seqs(ctx.since(mark)))
        ctx.failed("unknown-method-code", text, _seqs(ctx.since(mark)))
        return
    error = _error(response)
    if error is None:
        ctx.failed("unknown-method", f"the server answered the unknown method {UNKNOWN_METHOD} with a result",
                   _exchange(response))
        ctx.failed("unknown-method-code", "a result came instead of error -32601", _exchange(response))
        return
    ctx.passed("unknown-method", f"answered with {_code_text(error)}", _exchange(response))
    if error.get("code") == jsonrpc_codes.METHOD_NOT_FOUND:
        ctx.passed("unknown-method-code", "the error code is -32601", _exchange(response))
    else:
        ctx.failed("unknown-method-code", f"the error code is {error.get('code')}, not -32601 (Method not found)",
                   _exchange(response))


class jsonrpc_codes:
    """JSON-RPC 2.0's error codes, as the probes expect them."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602


async def probe_malformed_params(ctx: Context) -> None:
    caps = ctx.info.capabilities
    if "tools" in caps:
        method, params = "tools/call", {"name": 42, "arguments": "not an object"}
    elif "prompts" in caps:
        method, params = "prompts/get", {"name": 42}
    elif "resources" in caps:
        method, params = "resources/read", {"uri": 42}
    else:
        ctx.not_applicable("malformed-params", "the server declares no tools, prompts or resources to ask wrongly")
        return
    mark = ctx.mark()
    try:
        response = await ctx.ask(method, params)
    except RequestTimeout:
        ctx.failed("malformed-params", f"no answer to {method} with malformed params within {ctx.timeout:g} s",
                   _seqs(ctx.since(mark)))
        return
    error = _error(response)
    shown = json.dumps(params)
    if error is None:
        ctx.failed("malformed-params", f"{method} with params {shown} got a result, not error -32602",
                   _exchange(response))
    elif error.get("code") != jsonrpc_codes.INVALID_PARAMS:
        ctx.failed("malformed-params", f"{method} with params {shown} got {_code_text(error)}, not -32602",
                   _exchange(response))
    else:
        ctx.passed("malformed-params", f"{method} with params {shown} got error -32602", _exchange(response))


async def probe_notification(ctx: Context) -> None:
    """A notification no one defines (receivers ignore unknown notifications), then a liveness request: any
    response in between answers the notification."""
    mark = ctx.mark()
    await ctx.session.notify("notifications/mcp-inspector/check", {"note": "a notification needs no answer"})
    ok, sentence, seqs = await ctx.alive()
    events = ctx.since(mark)
    sent = events[0].seq if events else 0
    stray = [e for e in events if _is_response(e) and e.rpc is not None and (not e.rpc.has_id or e.rpc.id is None)]
    if stray:
        stray_id = json.dumps(stray[0].rpc.id if stray[0].rpc else None)
        ctx.failed("notification-no-response", f"the server answered the notification (a response with id {stray_id})",
                   [sent, stray[0].seq])
    elif not ok:
        ctx.failed("notification-no-response", f"after a notification, {sentence}", [sent, *seqs])
    else:
        ctx.passed("notification-no-response", f"no response to the notification; {sentence}", [sent, *seqs])
    if not ctx.http:
        return
    post = next((e for e in events if e.kind == Kind.HTTP and e.data.get("purpose") == "notification"
                 and "status" in e.data), None)
    if post is None:
        post = next((e for e in events if e.kind == Kind.HTTP and "status" in e.data), None)
    if post is None:
        ctx.not_applicable("http-notification-202", "the notification's HTTP exchange was not seen")
        return
    status = post.data.get("status")
    body = post.data.get("body_bytes") or 0
    if status == 202 and not body:
        ctx.passed("http-notification-202", "202 Accepted with no body", [post.seq])
    else:
        ctx.failed("http-notification-202", f"the notification's POST got {_got(post)}"
                                            + (f" with {body} bytes of body" if body else ""), [post.seq])


async def probe_cancellation(ctx: Context) -> None:
    if ctx.modern and ctx.http:
        ctx.not_applicable("cancellation", "over 2026-07-28 Streamable HTTP, closing the response stream cancels; "
                                           "there is no notification to send")
        return
    method = "server/discover" if ctx.modern else "ping"
    msg_id = ctx.session.next_id()
    mark = ctx.mark()
    obj = ctx.session.prepare_request({"jsonrpc": "2.0", "id": msg_id, "method": method})
    await ctx.session.send_object(obj)
    await ctx.session.notify("notifications/cancelled", {"requestId": msg_id, "reason": "mcp-inspector check"})
    ok, sentence, seqs = await ctx.alive()
    sent = _seqs(ctx.since(mark))[:2]
    if ok:
        ctx.passed("cancellation", f"{method} #{msg_id} was cancelled at once; {sentence}", [*sent, *seqs])
    else:
        ctx.failed("cancellation", f"{method} #{msg_id} was cancelled at once, {sentence}", [*sent, *seqs])


async def probe_batch(ctx: Context) -> None:
    if ctx.revision != "2025-03-26":
        ctx.not_applicable("batch", f"{ctx.revision} has no JSON-RPC batches (only 2025-03-26 has)")
        return
    first, second = ctx.session.next_id(), ctx.session.next_id()
    batch = [{"jsonrpc": "2.0", "id": first, "method": "ping"}, {"jsonrpc": "2.0", "id": second, "method": "ping"}]
    mark = ctx.mark()
    try:
        await ctx.session.send_object(batch)
    except TransportError as exc:
        ctx.failed("batch", f"sending a batch of two pings failed: {exc}", _seqs(ctx.since(mark)))
        return
    wanted = {id_key(first): first, id_key(second): second}

    def answered() -> set[IdKey]:
        return {id_key(r.get("id")) for e in ctx.since(mark) if e.dir == Direction.S2C and e.kind == Kind.MESSAGE
                for r in _responses_in(e)}

    # a liveness request after it bounds the wait: a server answers a batch before a request sent later
    # (a little grace for one that answers out of order)
    ok, sentence, _ = await ctx.alive()
    if ok:
        await ctx.wait_for(mark, lambda _e: wanted.keys() <= answered(), BATCH_GRACE)
    missing_keys = wanted.keys() - answered()
    seqs = _seqs(ctx.since(mark))
    if not missing_keys:
        ctx.passed("batch", "both pings of the batch were answered", seqs)
    else:
        missing = ", ".join(str(msg_id) for key, msg_id in wanted.items() if key in missing_keys)
        ctx.failed("batch", f"a batch of two pings got no answer for id {missing}; "
                            + (f"{sentence}, which it answered first" if ok else sentence), seqs)


async def probe_pagination(ctx: Context) -> None:
    """The first page of every list the server declares; the second one of each that has a nextCursor. Not
    applicable only when a list was answered and none had a second page: lists that were never answered
    leave the rule untested (incomplete), they do not show it holds."""
    paged: list[str] = []
    seqs: list[int] = []
    answered = 0
    unanswered: list[str] = []  # why each declared list gave no first page
    for kind, (method, field, capability) in LISTS.items():
        if capability not in ctx.info.capabilities:
            continue
        mark = ctx.mark()
        try:
            first = await ctx.ask(method)
        except RequestTimeout:
            unanswered.append(f"{method} got no answer within {ctx.timeout:g} s")
            seqs += _seqs(ctx.since(mark))
            continue
        result, error = result_of(first)
        if error is not None:
            unanswered.append(f"{method} answered {_code_text(_error(first) or {})}")
            seqs += _exchange(first)
            continue
        if not isinstance(result, dict) or not isinstance(result.get(field), list):
            unanswered.append(f"{method}'s result has no {field} list")
            seqs += _exchange(first)
            continue
        answered += 1
        cursor = result.get("nextCursor")
        if not isinstance(cursor, str):
            continue
        try:
            second = await ctx.ask(method, {"cursor": cursor})
        except RequestTimeout as exc:
            ctx.failed("pagination", f"{method} with the nextCursor the server gave got no answer: {exc}",
                       _seqs(ctx.since(mark)))
            return
        seqs += _exchange(first) + _exchange(second)
        result2, error2 = result_of(second)
        if error2 is not None:
            ctx.failed("pagination", f"{method} with the nextCursor {cursor[:40]!r} the server gave got "
                                     f"{_code_text(_error(second) or {})}", _exchange(first) + _exchange(second))
            return
        if not isinstance(result2, dict) or not isinstance(result2.get(field), list):
            ctx.failed("pagination", f"{method}'s second page has no {field} list", _exchange(second))
            return
        paged.append(f"{kind} ({len(result2[field])} on the second page)")
    if paged:
        ctx.passed("pagination", "the nextCursor round-tripped for " + ", ".join(paged), seqs)
    elif answered:
        ctx.not_applicable("pagination", "no list the server offers had a second page")
    elif unanswered:
        ctx.incomplete("pagination", "no list the server declares was answered, so no page could be followed: "
                       + "; ".join(unanswered), seqs)
    else:
        ctx.not_applicable("pagination", "the server declares no tools, resources or prompts to list")


async def probe_tool_schemas(ctx: Context) -> None:
    tools, sentence, seqs = await ctx.listing("tools")
    if tools is None:
        ctx.unlisted("tool-schemas", "tools", sentence, seqs)
        ctx.unlisted("tool-names", "tools", sentence, seqs)
        return
    named = name_problems(tool.get("name") for tool in tools)
    if named:
        more = f" (and {len(named) - 3} more)" if len(named) > 3 else ""
        ctx.failed("tool-names", "; ".join(named[:3]) + more, seqs)
    else:
        ctx.passed("tool-names", f"{len(tools)} tools, each a unique plain name", seqs)
    problems = []
    for tool in tools:
        name = shown_name(tool.get("name"))
        for key in ("inputSchema", "outputSchema"):
            if key not in tool:
                if key == "inputSchema":
                    problems.append(f"{name} has no inputSchema")
                continue
            # 2026-07-28: "This can be any valid JSON Schema 2020-12" for outputSchema (type "object" for input only)
            problem = _schema_object_problem(tool[key], need_object=key == "inputSchema" or not ctx.modern)
            if problem:
                problems.append(f"{name}'s {key} {problem}")
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        ctx.failed("tool-schemas", "; ".join(problems[:5]) + more, seqs)
    else:
        ctx.passed("tool-schemas", f"{len(tools)} tools, every schema a valid JSON Schema"
                   + ("" if ctx.modern else " of type \"object\""), seqs)


def _schema_object_problem(schema: Any, need_object: bool = True) -> str | None:
    if not isinstance(schema, dict):
        return "is not an object"
    if need_object and schema.get("type") != "object":
        return f"has type {json.dumps(schema.get('type'))}, not \"object\""
    problem = schema_problem(schema)
    return f"is not a valid JSON Schema: {problem}" if problem else None


async def probe_resources(ctx: Context) -> None:
    resources, sentence, seqs = await ctx.listing("resources")
    if resources is None:
        ctx.unlisted("resources-readable", "resources", sentence, seqs)
        return
    if not resources:
        ctx.not_applicable("resources-readable", "the server lists no resources")
        return
    problems: list[str] = []
    read_seqs: list[int] = []
    chosen = resources[:MAX_ITEMS]
    for resource in chosen:
        uri = resource.get("uri")
        try:
            response = await ctx.ask("resources/read", {"uri": uri})
        except RequestTimeout:
            problems.append(f"{shown_name(uri)}: no answer within {ctx.timeout:g} s")
            continue
        result, _ = result_of(response)
        error = _error(response)
        if error is not None:
            problems.append(f"{shown_name(uri)}: {_code_text(error)}")
            read_seqs += _exchange(response)
        elif not isinstance(result, dict) or not isinstance(result.get("contents"), list):
            problems.append(f"{shown_name(uri)}: the result has no contents list")
            read_seqs += _exchange(response)
    of = f" (the first {len(chosen)} of {len(resources)})" if len(resources) > len(chosen) else ""
    if problems:
        ctx.failed("resources-readable", f"{len(problems)} of {len(chosen)} resources{of} could not be read: "
                   + "; ".join(problems[:3]), read_seqs)
    else:
        ctx.passed("resources-readable", f"{len(chosen)} resources{of} read", seqs[-2:])


async def probe_prompts(ctx: Context) -> None:
    prompts, sentence, list_seqs = await ctx.listing("prompts")
    if prompts is None:
        ctx.unlisted("prompts-gettable", "prompts", sentence, list_seqs)
        return
    if not prompts:
        ctx.not_applicable("prompts-gettable", "the server lists no prompts")
        return
    problems: list[str] = []
    seqs: list[int] = []
    chosen = prompts[:MAX_ITEMS]
    for prompt in chosen:
        name = prompt.get("name")
        arguments = {str(a.get("name")): "test" for a in prompt.get("arguments") or []
                     if isinstance(a, dict) and a.get("required")}
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        try:
            response = await ctx.ask("prompts/get", params)
        except RequestTimeout:
            problems.append(f"{shown_name(name)}: no answer within {ctx.timeout:g} s")
            continue
        result, _ = result_of(response)
        error = _error(response)
        if error is not None:
            problems.append(f"{shown_name(name)}: {_code_text(error)}")
            seqs += _exchange(response)
        elif not isinstance(result, dict) or not isinstance(result.get("messages"), list):
            problems.append(f"{shown_name(name)}: the result has no messages list")
            seqs += _exchange(response)
    if problems:
        ctx.failed("prompts-gettable", f"{len(problems)} of {len(chosen)} prompts could not be got with \"test\" "
                                       "for each required argument (a server may rightly refuse such a value): "
                   + "; ".join(problems[:3]), seqs)
    else:
        ctx.passed("prompts-gettable", f"{len(chosen)} prompts got with their required arguments filled")


def sample_arguments(schema: Any) -> dict[str, Any]:
    """Arguments that fit ``schema``'s required properties, as simply as possible (an enum's first value, a
    default, "test", 1, false, [], an object of its own required properties)."""
    if not isinstance(schema, dict):
        return {}
    properties = p if isinstance(p := schema.get("properties"), dict) else {}
    required = [r for r in schema.get("required") or [] if isinstance(r, str)]
    return {name: _sample_value(properties.get(name, {})) for name in required}


def _sample_value(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return "test"
    if "default" in schema:
        return schema["default"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    minimum = schema.get("minimum")
    return {"string": "test", "integer": int(minimum) if isinstance(minimum, (int, float)) else 1,
            "number": minimum if isinstance(minimum, (int, float)) else 1, "boolean": False,
            "array": [], "object": sample_arguments(schema), "null": None}.get(str(kind), "test")


async def probe_tools(ctx: Context) -> None:
    if not ctx.options.call_tools and not ctx.options.call_all_tools:
        reason = "tools are called only with --call-tools"
        ctx.not_applicable("tools-callable", reason)
        ctx.not_applicable("tool-output-conforms", reason)
        return
    tools, sentence, list_seqs = await ctx.listing("tools")
    if tools is None:
        ctx.unlisted("tools-callable", "tools", sentence, list_seqs)
        ctx.unlisted("tool-output-conforms", "tools", sentence, list_seqs)
        return
    allowed = [t for t in tools if ctx.options.call_all_tools
               or (isinstance(t.get("annotations"), dict) and t["annotations"].get("readOnlyHint") is True)]
    if not allowed:
        reason = ("no tool is annotated readOnlyHint (--call-all-tools calls the others too)" if tools
                  else "the server lists no tools")
        ctx.not_applicable("tools-callable", reason)
        ctx.not_applicable("tool-output-conforms", reason)
        return
    problems: list[str] = []
    schema_problems: list[str] = []
    seqs: list[int] = []
    schema_seqs: list[int] = []
    checked_output = 0
    chosen = allowed[:MAX_ITEMS]
    for tool in chosen:
        name = tool.get("name")
        try:
            # with a progressToken: a slow tool that reports progress is waited for (each report restarts the clock)
            arguments = sample_arguments(tool.get("inputSchema"))
            response = await ctx.ask("tools/call", {"name": name, "arguments": arguments,
                                                    "_meta": {"progressToken": f"check-{name}"}})
        except RequestTimeout:
            problems.append(f"{shown_name(name)}: no answer within {ctx.timeout:g} s")
            continue
        result, _ = result_of(response)
        error = _error(response)
        if error is not None:
            problems.append(f"{shown_name(name)}: {_code_text(error)}")
            seqs += _exchange(response)
            continue
        if not isinstance(result, dict) or not isinstance(result.get("content"), list):
            problems.append(f"{shown_name(name)}: the result has no content list")
            seqs += _exchange(response)
            continue
        output = tool.get("outputSchema")
        if isinstance(output, dict) and not result.get("isError") and \
                _schema_object_problem(output, need_object=not ctx.modern) is None:
            checked_output += 1
            if "structuredContent" not in result:
                schema_problems.append(f"{shown_name(name)} declares an outputSchema but its result has no "
                                       "structuredContent")
                schema_seqs += _exchange(response)
                continue
            violation = first_violation(output, result["structuredContent"], root="structuredContent")
            if violation is not None:
                schema_problems.append(f"{shown_name(name)}: {violation.sentence}")
                schema_seqs += _exchange(response)
    if problems:
        ctx.failed("tools-callable", f"{len(problems)} of {len(chosen)} tools failed: " + "; ".join(problems[:3]), seqs)
    else:
        ctx.passed("tools-callable", f"{len(chosen)} tools answered with a result")
    if schema_problems:
        ctx.failed("tool-output-conforms", "; ".join(schema_problems[:3]), schema_seqs)
    elif checked_output:
        ctx.passed("tool-output-conforms", f"{checked_output} results conform to their tool's outputSchema")
    else:
        ctx.not_applicable("tool-output-conforms", "no tool called declares an outputSchema")


async def probe_modern_unsupported(ctx: Context) -> None:
    """2026-07-28: server/discover at a revision no one speaks, on the same connection (no session state)."""
    if not ctx.modern:  # the legacy form needs a connection of its own: the runner makes one
        ctx.not_applicable("handshake-unsupported", "up to 2025-11-25 initialize is sent once per connection: the "
                                                    f"session at {UNSUPPORTED_REVISION} checks it")
        return
    meta = {"io.modelcontextprotocol/protocolVersion": UNSUPPORTED_REVISION,
            "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo":
                {"name": "mcp-inspector", "version": "check"}}
    mark = ctx.mark()
    try:
        response = await ctx.ask("server/discover", {"_meta": meta}, meta=False)
    except TransportError as exc:
        errors = [e for e in ctx.since(mark) if _is_response(e)]
        if errors:
            judge_modern_unsupported(ctx, errors[0])
        else:
            ctx.failed("handshake-unsupported", f"server/discover at {UNSUPPORTED_REVISION}: {exc}",
                       _seqs(ctx.since(mark)))
        return
    judge_modern_unsupported(ctx, response)


def judge_modern_unsupported(ctx: Context, response: Event) -> None:
    error = _error(response)
    seqs = [s for s in _exchange(response) if s] or [response.seq]
    if error is None:
        ctx.failed("handshake-unsupported", f"server/discover at {UNSUPPORTED_REVISION} got a result, not an "
                                            "UnsupportedProtocolVersionError (-32022)", seqs)
        return
    data = error.get("data")
    supported = data.get("supported") if isinstance(data, dict) else None
    if error.get("code") != -32022:
        ctx.failed("handshake-unsupported", f"server/discover at {UNSUPPORTED_REVISION} got {_code_text(error)}, "
                                            "not -32022 (UnsupportedProtocolVersionError)", seqs)
    elif not isinstance(supported, list) or not supported:
        ctx.failed("handshake-unsupported", "the -32022 error has no data.supported list of revisions", seqs)
    else:
        ctx.passed("handshake-unsupported", f"-32022, supported: {', '.join(map(str, supported))}", seqs)


async def probe_invalid_json(ctx: Context) -> None:
    mark = ctx.mark()
    # wrong from its second byte: a line that ends too early would be held as the start of a split message
    broken = b'{this is not JSON}'
    try:
        await ctx.session.send_raw(broken if ctx.http else broken + b"\n")
    except TransportClosed as exc:
        ctx.failed("invalid-json-survives", f"the connection ended on invalid JSON: {exc}", _seqs(ctx.since(mark)))
        ctx.failed("invalid-json", "the server went away instead of answering", _seqs(ctx.since(mark)))
        return
    except TransportError:
        pass  # over HTTP, a 4xx: judged below from its event
    sent = _seqs(ctx.since(mark))[:1]

    def parse_error(event: Event) -> bool:
        return event.dir == Direction.S2C and any(
            isinstance(r.get("error"), dict) and r["error"].get("code") == jsonrpc_codes.PARSE_ERROR
            for r in _responses_in(event))

    if ctx.http:
        answer = next((e for e in ctx.since(mark) if e.kind == Kind.HTTP and "status" in e.data), None)
        parsed = next((e for e in ctx.since(mark) if parse_error(e)), None)
        status = answer.data.get("status") if answer is not None else None
        shown = [s for s in (answer.seq if answer else 0, parsed.seq if parsed else 0) if s]
        if isinstance(status, int) and 400 <= status < 500:
            ctx.passed("invalid-json", f"HTTP {status}" + (" with error -32700" if parsed else ""), sent + shown)
        elif parsed is not None:
            ctx.passed("invalid-json", "error -32700", sent + shown)
        else:
            ctx.failed("invalid-json", f"the invalid JSON got {_got(answer)} and no error -32700", sent + shown)
    else:
        found = await ctx.wait_for(mark, parse_error, ctx.timeout)
        if found is not None:
            ctx.passed("invalid-json", "error -32700 with a null id", sent + [found.seq])
    ok, sentence, seqs = await ctx.alive()
    if not ctx.http and not ctx.judged("invalid-json"):
        # what answered the line: a response with a null id (the only id an answer to unparseable input has);
        # a second answer to an earlier request is no answer to it
        others = [e for e in ctx.since(mark) if _is_response(e) and e.seq not in seqs and e.rpc is not None
                  and e.rpc.id is None]
        error = _error(others[0]) if others else None
        what = (f"it answered {_code_text(error)}" if error is not None else
                "it answered with a result" if others else "no error -32700 came")
        ctx.failed("invalid-json", f"after a line of invalid JSON, {what}",
                   sent + [e.seq for e in others[:1]] + (seqs if ok else []))
    if ok:
        ctx.passed("invalid-json-survives", f"after invalid JSON, {sentence}", sent + seqs)
    else:
        ctx.failed("invalid-json-survives", f"after invalid JSON, {sentence}", sent + seqs)


def _loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _ping_body(ctx: Context) -> bytes:
    obj = ctx.session.prepare_request({"jsonrpc": "2.0", "method": "server/discover" if ctx.modern else "ping"})
    return json.dumps(obj).encode()


def _modern_headers(ctx: Context) -> dict[str, str]:
    if not ctx.modern:
        return {}
    return {"MCP-Protocol-Version": MODERN, "Mcp-Method": "server/discover"}


async def probe_http(ctx: Context) -> None:
    """The Streamable HTTP checks; the DELETE last, since it ends the session."""
    ids = ("http-origin", "http-accept", "http-get-stream", "http-delete", "http-modern-405")
    if not ctx.http:
        for check_id in ids + ("http-notification-202",):
            if not ctx.judged(check_id):
                ctx.not_applicable(check_id, "stdio has no HTTP")
        return
    json_headers = {"Content-Type": "application/json", **_modern_headers(ctx)}
    # Accept without text/event-stream (first: it also tells whether the transport can probe at all)
    try:
        event, _ = await _http(ctx, "POST", {**json_headers, "Accept": "application/json"}, _ping_body(ctx),
                               "check: Accept without text/event-stream")
    except _NoProbes:
        for check_id in ids:
            ctx.not_applicable(check_id, "the server speaks HTTP+SSE (2024-11-05), not Streamable HTTP")
        return
    status = event.data.get("status")
    if status == 406:
        ctx.passed("http-accept", "HTTP 406 Not Acceptable", [event.seq])
    else:
        ctx.failed("http-accept", f"a POST with Accept: application/json only got {_got(event)}, not 406",
                   [event.seq])
    # a foreign Origin
    if not _loopback(ctx.url):
        ctx.not_applicable("http-origin", "the server is not on a loopback address: which origins it trusts is its "
                                          "own choice")
    else:
        event, _ = await _http(ctx, "POST", {**json_headers, "Accept": "application/json, text/event-stream",
                                             "Origin": FOREIGN_ORIGIN}, _ping_body(ctx), "check: foreign Origin")
        status = event.data.get("status")
        strict = ctx.revision in ("2025-11-25", MODERN)
        if status == 403 or (not strict and isinstance(status, int) and 400 <= status < 500):
            ctx.passed("http-origin", f"Origin {FOREIGN_ORIGIN} was refused with HTTP {status}", [event.seq])
        else:
            ctx.failed("http-origin", f"a POST with Origin {FOREIGN_ORIGIN} to a server on a loopback address got "
                                      f"{_got(event)}" + (", not 403" if strict else ", not refused"), [event.seq])
    if ctx.modern:
        await _modern_405(ctx)
        return
    for check_id in ("http-modern-405",):
        ctx.not_applicable(check_id, f"{ctx.revision} has a GET stream and sessions")
    await _get_stream(ctx)
    await _delete(ctx)


async def _http(ctx: Context, method: str, headers: dict[str, str], content: bytes | None, purpose: str
                ) -> tuple[Event, bytes]:
    found = await asyncio.wait_for(ctx.session.http_probe(method, headers=headers, content=content, purpose=purpose),
                                   ctx.timeout)
    if found is None:
        raise _NoProbes("the transport cannot make HTTP probes")
    return found


class _NoProbes(TransportError):
    """The session's transport is not Streamable HTTP."""


async def _get_stream(ctx: Context) -> None:
    # the session's own standalone stream, opened after the handshake, is the probe when it is there
    own = next((e for e in ctx.events if e.kind == Kind.HTTP and e.data.get("method") == "GET"
                and "status" in e.data), None)
    event = own if own is not None else (await _http(ctx, "GET", {"Accept": "text/event-stream"}, None,
                                                     "check: GET stream"))[0]
    status = event.data.get("status")
    headers = event.data.get("response_headers") or {}
    content_type = next((str(v) for k, v in headers.items() if k.lower() == "content-type"), "")
    if status == 405:
        ctx.passed("http-get-stream", "HTTP 405: the server offers no GET stream", [event.seq])
    elif isinstance(status, int) and 200 <= status < 300 and "text/event-stream" in content_type:
        ctx.passed("http-get-stream", f"HTTP {status} with an event stream", [event.seq])
    else:
        ctx.failed("http-get-stream", f"GET got {_got(event)} ({content_type or 'no Content-Type'}), neither an "
                                      "event stream nor 405", [event.seq])


async def _delete(ctx: Context) -> None:
    issued = any(k.lower() == "mcp-session-id" for e in ctx.events if e.kind == Kind.HTTP
                 for k in (e.data.get("response_headers") or {}))
    if not issued:
        ctx.not_applicable("http-delete", "the server gave no session id (a stateless server)")
        return
    event, _ = await _http(ctx, "DELETE", {}, None, "check: end the session")
    status = event.data.get("status")
    if status == 405:
        ctx.not_applicable("http-delete", "the server does not let clients end sessions (405), which the spec allows")
        return
    if not (isinstance(status, int) and 200 <= status < 300):
        ctx.failed("http-delete", f"DELETE got {_got(event)}", [event.seq])
        return
    after, _ = await _http(ctx, "POST", {"Content-Type": "application/json",
                                         "Accept": "application/json, text/event-stream"}, _ping_body(ctx),
                           "check: a request in the ended session")
    status2 = after.data.get("status")
    if status2 == 404:
        ctx.passed("http-delete", f"DELETE got HTTP {status}; the next request got 404", [event.seq, after.seq])
    else:
        ctx.failed("http-delete", f"DELETE got HTTP {status}, yet the next request in that session got "
                                  f"{_got(after)}, not 404", [event.seq, after.seq])


async def _modern_405(ctx: Context) -> None:
    for check_id in ("http-get-stream", "http-delete"):
        ctx.not_applicable(check_id, "2026-07-28 has no GET stream and no sessions")
    if [v for v in ctx.info.supported_versions if v != MODERN]:
        ctx.not_applicable("http-modern-405", "the server speaks earlier revisions too ("
                           + ", ".join(v for v in ctx.info.supported_versions if v != MODERN)
                           + "), whose clients may GET and DELETE")
        return
    seqs = []
    wrong = []
    for method in ("GET", "DELETE"):
        event, _ = await _http(ctx, method, {"Accept": "text/event-stream"} if method == "GET" else {}, None,
                               f"check: {method} in 2026-07-28")
        seqs.append(event.seq)
        if event.data.get("status") != 405:
            wrong.append(f"{method} got {_got(event)}")
    if wrong:
        ctx.failed("http-modern-405", "; ".join(wrong) + ", not 405", seqs)
    else:
        ctx.passed("http-modern-405", "GET and DELETE got 405", seqs)


#: The probes of one session, in order: the ones that may break the connection last.
PROBES: tuple[tuple[tuple[str, ...], Probe], ...] = (
    (("ping",), probe_ping),
    (("ids-echoed",), probe_ids),
    (("unknown-method", "unknown-method-code"), probe_unknown_method),
    (("malformed-params",), probe_malformed_params),
    (("notification-no-response", "http-notification-202"), probe_notification),
    (("cancellation",), probe_cancellation),
    (("batch",), probe_batch),
    (("pagination",), probe_pagination),
    (("tool-schemas", "tool-names"), probe_tool_schemas),
    (("resources-readable",), probe_resources),
    (("prompts-gettable",), probe_prompts),
    (("tools-callable", "tool-output-conforms"), probe_tools),
    (("handshake-unsupported",), probe_modern_unsupported),
    (("invalid-json", "invalid-json-survives"), probe_invalid_json),
    (("http-origin", "http-accept", "http-get-stream", "http-delete", "http-modern-405"), probe_http),
)
