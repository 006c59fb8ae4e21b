"""What a live server offers (tools, resources, resource templates, prompts) and the calls that use it.

A :class:`Catalog` is bound to one :class:`~inspector.core.session.session.Session` after its handshake. It
lists every kind the server declares (:func:`~inspector.core.explore.listing.declared`, all pages through
:func:`~inspector.core.explore.listing.list_all`), lists a kind again when the server says it changed
(``notifications/*/list_changed``, https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification)
and declared that it would, at most once a second (:class:`~inspector.core.explore.relist.RelistPolicy`),
and sends the explorer's requests: ``tools/call`` with a progress token, ``resources/read``,
``resources/subscribe``/``unsubscribe``, ``prompts/get``, ``completion/complete`` (only to a server that declares
``completions``), and ``notifications/roots/list_changed`` when the user edits the roots.

Every request goes through the session, so each one is a row of the timeline like any other. The catalog hears
the server through the session's listeners (plain callables called with each batch after the pipeline's work),
and tells its own listeners plain :class:`Notice` values: no Qt here. Failures are sentences: a
:class:`ExploreError`, or a session error (``TransportError``), whose ``str()`` is one.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.core.explore.caching import CacheHints, expiry_delay, hints_of
from inspector.core.explore.listing import LISTS, ListingError, declared, list_all
from inspector.core.explore.relist import RelistPolicy, declares_list_changed, stale_kinds
from inspector.core.explore.subscriptions import Subscriptions, filter_for
from inspector.core.explore.tasks import TaskBook, plan
from inspector.core.notices import What
from inspector.core.session.outcomes import result_of
from inspector.core.session.session import DEFAULT_REQUEST_TIMEOUT, Session
from inspector.core.tasks import Tasks
from inspector.core.transports.base import TransportError
from inspector.core.wire.events import Direction, Event, Kind, params_of

KINDS = tuple(LISTS)  #: tools, resources, templates, prompts
#: the kind each list request lists (``tools/list``: tools)
LISTED_BY = {method: kind for kind, (method, _, _) in LISTS.items()}
#: The prefix of the progress tokens the explorer sends (a counter follows): easy to spot in the timeline.
PROGRESS_PREFIX = "explorer-"


class ExploreError(Exception):
    """A request the explorer made could not be done or was answered with an error; ``str()`` is a sentence."""

    def __init__(self, sentence: str, error: Any = None) -> None:
        super().__init__(sentence)
        self.error = error  #: the JSON-RPC error object, when the server answered with one


@dataclass(frozen=True)
class Notice:
    """What the catalog tells its listeners (``what``, a :class:`~inspector.core.notices.What`).

    :attr:`~What.LISTED` (``kind``'s items are new; the listing's caching hints in ``data``),
    :attr:`~What.LIST_FAILED` (``kind`` could not be listed: ``sentence``), :attr:`~What.CHANGE_IGNORED` (the server
    said ``kind`` changed without declaring ``listChanged``, so it is not listed again: ``sentence``; told once
    per kind), :attr:`~What.UPDATED` (the server says resource ``uri`` changed), :attr:`~What.PROGRESS` (``token``'s
    notification params in ``data``: ``progress``, ``total``, ``message``), :attr:`~What.ROOTS` (the roots
    changed), :attr:`~What.CALLED` (a tool call came back: ``data`` has its ``name``, ``arguments`` and
    ``response`` event; the Apps tab shows the tool's app, if it has one), :attr:`~What.READ` (resource ``uri``
    was read: its caching hints in ``data``), :attr:`~What.LISTEN_FAILED` (no subscription could be opened:
    ``sentence``).
    """

    what: What
    kind: str | None = None
    uri: str | None = None
    token: str | None = None
    sentence: str | None = None
    data: Any = None


CatalogListener = Callable[[Notice], None]


def error_sentence(method: str, error: Any) -> str:
    """One sentence for a JSON-RPC error answer to ``method``."""
    if isinstance(error, dict):
        message = error.get("message")
        return f"the server answered {method} with an error: {message or '(no message)'} (code {error.get('code')})"
    return f"the server answered {method} with an error: {error!r}"


def root_uri(folder: str) -> str:
    """A folder as the ``file://`` URI ``roots/list`` gives (https://modelcontextprotocol.io/specification/2025-11-25/client/roots);
    a URI already given (``file:///...``) is kept as it is."""
    if folder.startswith("file://"):
        return folder
    return Path(folder).expanduser().absolute().as_uri()


def roots_of(folders: list[str]) -> list[dict[str, str]]:
    """The ``roots`` of a ``roots/list`` result for ``folders``: each a ``file://`` URI named after its last part."""
    roots = []
    for folder in folders:
        uri = root_uri(folder)
        roots.append({"uri": uri, "name": uri.rstrip("/").rsplit("/", 1)[-1] or uri})
    return roots


class Catalog:
    """The server's tools, resources, templates and prompts, kept up to date, and the calls that use them.

    Build it with the session (before or after the handshake), :meth:`attach` it (it then hears the session's
    events), and :meth:`load` once the handshake is done. ``items[kind]`` holds each kind's items in the
    server's order; ``problems[kind]`` the sentence of the last failed listing of it.
    """

    def __init__(self, session: Session, *, timeout: float = DEFAULT_REQUEST_TIMEOUT) -> None:
        self.session = session
        self.timeout = timeout
        self.items: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
        self.problems: dict[str, str] = {}
        self.listeners: list[CatalogListener] = []
        self.subscribed: set[str] = set()  #: resource URIs this catalog subscribed to
        self.loaded = False  #: load() ran: list_changed notifications refresh from now on
        self._tokens: set[str] = set()  #: progress tokens of calls still running
        self._counter = itertools.count(1)
        self._tasks = Tasks()
        self._loading = False  #: load() is under way
        self._relist = RelistPolicy()  #: when a kind the server says changed is listed again
        self._timers: dict[str, asyncio.TimerHandle] = {}  #: kind -> its listing scheduled by the policy
        self._ignored: set[str] = set()  #: kinds whose undeclared list_changed the listeners were told about
        #: the session's tasks (both forms), and how a tool call runs as one
        self.tasks = TaskBook(session, timeout=timeout)
        #: 2026-07-28: the subscriptions/listen stream that brings list changes and resource updates
        self.subscriptions = Subscriptions(session)
        #: 2026-07-28 caching hints of each kind's last listing and of each resource read (ttlMs, cacheScope)
        self.freshness: dict[str, CacheHints | None] = {}
        self.read_hints: dict[str, CacheHints | None] = {}
        self._expiries: dict[str, asyncio.TimerHandle] = {}  #: kind -> its listing's expiry

    # -- what the server declared ------------------------------------------------------------------------

    @property
    def capabilities(self) -> dict[str, Any]:
        server = self.session.server
        return server.capabilities if server is not None else {}

    def declares(self, kind: str) -> bool:
        """Whether the server declares ``kind`` (``tools``, ``resources``, ``templates``, ``prompts``)."""
        return declared(self.capabilities, kind)

    @property
    def completions(self) -> bool:
        """The server declares ``completions`` (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion)."""
        return isinstance(self.capabilities.get("completions"), dict)

    @property
    def can_subscribe(self) -> bool:
        """The server declares ``resources.subscribe``: resources/subscribe, or on 2026-07-28 the URI in the
        filter of the subscriptions/listen stream."""
        resources = self.capabilities.get("resources")
        return isinstance(resources, dict) and resources.get("subscribe") is True

    def find(self, kind: str, name: str) -> dict[str, Any] | None:
        """The item of ``kind`` called ``name`` (a template by its uriTemplate or name, a resource by its uri or
        name), or None."""
        keys = {"resources": ("uri", "name"), "templates": ("uriTemplate", "name")}.get(kind, ("name",))
        for key in keys:
            for item in self.items.get(kind, []):
                if item.get(key) == name:
                    return item
        return None

    # -- listening -----------------------------------------------------------------------------------------

    def attach(self) -> None:
        """Hear the session's events (list_changed, resources/updated, progress) from now on."""
        if self._on_events not in self.session.listeners:
            self.session.listeners.append(self._on_events)
        self.tasks.attach()
        self.subscriptions.attach()

    def detach(self) -> None:
        """Hear nothing more, and list nothing more (listings under way end by themselves: the session fails them
        once it is closed)."""
        if self._on_events in self.session.listeners:
            self.session.listeners.remove(self._on_events)
        self.tasks.detach()
        self.subscriptions.detach()
        for kind, timer in list(self._timers.items()):
            timer.cancel()
            self._relist.dropped(kind)
        self._timers.clear()
        for expiry in self._expiries.values():
            expiry.cancel()
        self._expiries.clear()

    def _tell(self, notice: Notice) -> None:
        for listener in list(self.listeners):
            listener(notice)

    def _on_events(self, events: list[Event]) -> None:
        for event in events:
            if event.kind != Kind.MESSAGE or event.rpc is None:
                continue
            if event.dir == Direction.C2S:
                kind = LISTED_BY.get(event.rpc.method or "")
                if kind is not None:
                    self._relist.sent(kind, self._now())
                continue
            if event.dir != Direction.S2C:
                continue
            method = event.rpc.method
            if method is None or not method.startswith("notifications/"):
                continue
            kinds = stale_kinds(method)
            if kinds and self.loaded:
                for kind in kinds:
                    if self.declares(kind):
                        self._changed(kind, method)
            elif method == "notifications/resources/updated":
                params = params_of(event)
                uri = params.get("uri")
                if isinstance(uri, str):
                    self._tell(Notice(What.UPDATED, uri=uri, data=params))
            elif method == "notifications/progress" and self._tokens:
                params = params_of(event)
                token = params.get("progressToken")
                if isinstance(token, str) and token in self._tokens:
                    self._tell(Notice(What.PROGRESS, token=token, data=params))

    def _changed(self, kind: str, method: str) -> None:
        """The server said ``kind`` changed: list it again if it declared it would say so (or, on 2026-07-28, its
        subscription acknowledged that it would), when the policy says."""
        if not declares_list_changed(self.capabilities, kind) and not self._acknowledged(kind):
            if kind not in self._ignored:
                self._ignored.add(kind)
                capability = LISTS[kind][2]
                self._tell(Notice(What.CHANGE_IGNORED, kind=kind, sentence=(
                    f"the server sent {method} but does not declare {capability}.listChanged, so its {kind} are "
                    "not listed again (a protocol finding; reconnect to see the new list)")))
            return
        delay = self._relist.changed(kind, self._now())
        if delay is not None:
            self._schedule(kind, delay)

    def _acknowledged(self, kind: str) -> bool:
        current = self.subscriptions.current
        heard = current.acknowledged if current is not None else None
        field = {"tools": "toolsListChanged", "prompts": "promptsListChanged"}.get(kind, "resourcesListChanged")
        return isinstance(heard, dict) and heard.get(field) is True

    def _expire_later(self, kind: str, delay: float | None) -> None:
        """The listing of ``kind`` expires in ``delay`` seconds (its ttlMs): it is listed again then, through the
        relisting policy (never sooner, and never twice for one change)."""
        previous = self._expiries.pop(kind, None)
        if previous is not None:
            previous.cancel()
        if delay is not None and self._on_events in self.session.listeners:
            self._expiries[kind] = asyncio.get_running_loop().call_later(delay, self._expired, kind)

    def _expired(self, kind: str) -> None:
        self._expiries.pop(kind, None)
        if self.session.closed:
            return
        delay = self._relist.changed(kind, self._now())
        if delay is not None:
            self._schedule(kind, delay)

    def _schedule(self, kind: str, delay: float) -> None:
        self._timers[kind] = asyncio.get_running_loop().call_later(delay, self._due, kind)

    def _due(self, kind: str) -> None:
        self._timers.pop(kind, None)
        if self.session.closed:
            self._relist.dropped(kind)
        elif self._relist.due(kind, self._now()):  # counted as started now, before the task first runs
            self._tasks.spawn(self._list(kind), f"listing {kind}")

    @staticmethod
    def _now() -> float:
        """The policy's clock: any monotonic one (its timers take delays). Not the loop's: session listeners also
        run where no loop is running (a task step during Qt's event processing), and must not raise there."""
        return time.monotonic()

    # -- listing -------------------------------------------------------------------------------------------

    async def load(self) -> None:
        """List every kind the server declares (never raises: a failure is ``problems[kind]`` and a notice)."""
        self.loaded = True
        self._loading = True
        try:
            for kind in KINDS:
                if self.declares(kind) and not self.session.closed:
                    await self.refresh(kind)
        finally:
            self._loading = False
        await self.listen()

    async def listen(self) -> None:
        """On 2026-07-28, open (or open again, with today's filter) the subscriptions/listen stream: every list
        change the server can announce, and updates of the resources subscribed to. Never raises: a stream that
        cannot be sent is told as ``listen_failed``."""
        if not self.session.modern or self.session.closed:
            return
        try:
            await self.subscriptions.listen(filter_for(self.capabilities, sorted(self.subscribed)))
        except TransportError as exc:
            self._tell(Notice(What.LISTEN_FAILED, sentence=f"cannot listen for changes: {exc}"))

    async def wait_idle(self, timeout: float) -> None:
        """Wait at most ``timeout`` seconds for the listings started by list_changed notifications to end."""
        await self._tasks.wait(timeout)

    @property
    def settled(self) -> bool:
        """:meth:`load` has run and no listing is under way or scheduled."""
        return self.loaded and not self._loading and not self._relist.busy()

    async def refresh(self, kind: str) -> None:
        """List ``kind`` again, every page; tells ``listed`` or ``list_failed`` (with the sentence). A
        list_changed that arrives meanwhile makes it list once more after it, when the policy says (not once
        per notification, and not sooner than a second after this one started)."""
        self._relist.started(kind, self._now())
        await self._list(kind)

    async def _list(self, kind: str) -> None:
        """The listing of :meth:`refresh`, once the policy counts it as started."""
        try:
            try:
                listing = await list_all(self.session, kind, timeout=self.timeout)
            except (ListingError, TransportError) as exc:
                self.problems[kind] = str(exc)
                self._tell(Notice(What.LIST_FAILED, kind=kind, sentence=str(exc)))
                return
            self.problems.pop(kind, None)
            self.items[kind] = listing.items
            self.freshness[kind] = listing.hints
            self._expire_later(kind, expiry_delay(listing.hints))
            self._tell(Notice(What.LISTED, kind=kind, data=listing.hints))
        finally:
            delay = self._relist.finished(kind, self._now())
            if delay is not None:
                if self._on_events in self.session.listeners:
                    self._schedule(kind, delay)
                else:  # detached meanwhile: nothing more is listed
                    self._relist.dropped(kind)

    # -- calls ---------------------------------------------------------------------------------------------

    def new_token(self) -> str:
        return f"{PROGRESS_PREFIX}{next(self._counter)}"

    def call_params(self, name: str, arguments: dict[str, Any], token: str | None = None) -> dict[str, Any]:
        """The params of ``tools/call`` for ``name`` with ``arguments`` (and a progress token)."""
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if token is not None:
            params["_meta"] = {"progressToken": token}
        return params

    async def call_tool(self, name: str, arguments: dict[str, Any], progress: bool | str = True,
                        as_task: bool = False) -> Event:
        """Call tool ``name``; with ``progress`` (True: a fresh token; a string: that token) the request asks
        for progress notifications, told to listeners as ``progress`` notices while it runs (and its timeout
        restarts on each). A tool whose ``execution.taskSupport`` is ``required`` runs as a task, one that is
        ``optional`` when ``as_task`` (:func:`~inspector.core.explore.tasks.plan`; :attr:`tasks` follows it to
        its end). Returns the last answer (read it with :func:`~inspector.core.explore.tasks.outcome_of`): a
        result (maybe ``isError``) or a JSON-RPC error; raises the session's errors (a timeout, the server gone,
        a task that cannot be had), each a sentence."""
        form = plan(self.session.server, self.find("tools", name), as_task)
        token = (progress if isinstance(progress, str) else self.new_token()) if progress else None
        if token is not None:
            self._tokens.add(token)
        try:
            response = await self.tasks.call_tool(self.call_params(name, arguments, token), form)
        finally:
            self._tokens.discard(token or "")
        self._tell(Notice(What.CALLED, kind="tools", data={"name": name, "arguments": arguments, "response": response}))
        return response

    async def read_resource(self, uri: str) -> Event:
        """``resources/read`` of ``uri``; the response event. Its caching hints are kept (:attr:`read_hints`)
        and told as a ``read`` notice."""
        response = await self.session.request("resources/read", {"uri": uri}, timeout=self.timeout)
        result, _error = result_of(response)
        self.read_hints[uri] = hints = hints_of(result)
        self._tell(Notice(What.READ, uri=uri, data=hints))
        return response

    async def subscribe(self, uri: str) -> None:
        """``resources/subscribe`` to ``uri`` (on 2026-07-28: a subscriptions/listen stream whose filter has it);
        ``updated`` notices follow. Raises ExploreError (not declared, or an error answer) or the session's
        errors."""
        if self.session.modern and self.can_subscribe:
            self.subscribed.add(uri)
            await self.listen()
            return
        await self._subscription("resources/subscribe", uri)
        self.subscribed.add(uri)

    async def unsubscribe(self, uri: str) -> None:
        if self.session.modern and self.can_subscribe:
            self.subscribed.discard(uri)
            await self.listen()
            return
        await self._subscription("resources/unsubscribe", uri)
        self.subscribed.discard(uri)

    async def _subscription(self, method: str, uri: str) -> None:
        if not self.can_subscribe:
            why = "the server does not declare resources.subscribe"
            raise ExploreError(f"cannot {method.rsplit('/', 1)[1]} to {uri}: {why}")
        response = await self.session.request(method, {"uri": uri}, timeout=self.timeout)
        _result, error = result_of(response)
        if error is not None:
            raise ExploreError(error_sentence(method, error), error)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Event:
        """``prompts/get`` of ``name`` with ``arguments`` (strings, as the spec says); the response event."""
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        return await self.session.request("prompts/get", params, timeout=self.timeout)

    async def complete(self, ref: dict[str, Any], argument_name: str, value: str,
                       context: dict[str, str] | None = None) -> list[str]:
        """The server's suggestions for argument ``argument_name`` of ``ref`` (``{"type": "ref/prompt",
        "name": ...}`` or ``{"type": "ref/resource", "uri": template}``) given what is typed so far; ``context``:
        the other arguments already chosen. An empty list, without asking, from a server that does not declare
        ``completions``. Raises ExploreError on an error answer."""
        if not self.completions:
            return []
        params: dict[str, Any] = {"ref": ref, "argument": {"name": argument_name, "value": value}}
        if context:
            params["context"] = {"arguments": context}
        response = await self.session.request("completion/complete", params, timeout=self.timeout)
        result, error = result_of(response)
        if error is not None:
            raise ExploreError(error_sentence("completion/complete", error), error)
        completion = result.get("completion") if isinstance(result, dict) else None
        values = completion.get("values") if isinstance(completion, dict) else None
        return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []

    async def set_roots(self, folders: list[str]) -> None:
        """Answer ``roots/list`` with ``folders`` from now on and tell the server the list changed
        (``notifications/roots/list_changed``; not in the 2026-07-28 revision, which has no such notification)."""
        self.session.roots = roots_of(folders)
        self._tell(Notice(What.ROOTS, data=list(self.session.roots)))
        if not self.session.modern and not self.session.closed and self.session.server is not None:
            await self.session.notify("notifications/roots/list_changed")


def request_message(method: str, params: Any, msg_id: Any = 1) -> str:
    """A JSON-RPC request as text (what "Copy as JSON-RPC" gives)."""
    obj: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        obj["params"] = params
    return json.dumps(obj, ensure_ascii=False, indent=2)
