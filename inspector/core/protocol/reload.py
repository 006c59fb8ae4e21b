"""What a reload on save needs to know of a client's session, without I/O (``tap --watch``).

When a watched file changes, the tap restarts the server behind a client that keeps its session
(:mod:`inspector.core.tap.reloading` does the I/O). This module holds the decisions:

* :class:`ClientSession` remembers what the client said that a new server must hear again: its ``initialize``
  request and ``notifications/initialized`` (up to 2025-11-25), or its ``server/discover`` and the per-request
  ``_meta`` (``io.modelcontextprotocol/protocolVersion`` and the client's capabilities, 2026-07-28, where every
  request carries them and there is no handshake to replay); the requests the server has not answered yet (sent
  again to the new server); the ``subscriptions/listen`` streams the client opened (2026-07-28: a
  ``list_changed`` notification goes only to a stream that asked for it, carrying its id).
* :class:`Listing` asks a server for its tools, prompts and resources (the kinds its capabilities declare),
  following ``nextCursor`` for at most :data:`MAX_PAGES` pages, with ids of the inspector's own
  (:data:`ID_PREFIX`) that cannot collide with a client's.
* :func:`changed_kinds` compares two listings: the kinds whose lists differ, for which the client gets
  ``notifications/<kind>/list_changed``; none when nothing did.
* :func:`declaring_list_changed`: the server's answer to the client's handshake, as the client gets it. A
  ``list_changed`` notification is for a server that declared ``listChanged`` for that kind (`Tools
  <https://modelcontextprotocol.io/specification/2025-06-18/server/tools#capabilities>`_: "listChanged indicates
  whether the server will emit notifications when the list of available tools changes"); with ``--watch`` the tap
  emits them for the server, so it declares them, and a client that heeds the capability acts on them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from inspector.core.wire.ids import IdKey, id_key

#: The prefix of every request id the inspector sends a server on its own during a reload (a string: a client's
#: ids are numbers or its own strings, and none starts so).
ID_PREFIX = "inspector-reload-"
#: What a reload compares, in this order.
KINDS = ("tools", "prompts", "resources")
#: A listing follows ``nextCursor`` at most this many pages a kind (a server that always returns a cursor).
MAX_PAGES = 50
#: 2026-07-28: the ``_meta`` keys every request carries.
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"
#: The ``subscriptions/listen`` filter key that asks for a kind's ``list_changed``.
LISTEN_KEYS = {"tools": "toolsListChanged", "prompts": "promptsListChanged", "resources": "resourcesListChanged"}
#: A kind's items, as a listing: sorted canonical JSON texts; None: the server did not say (an error, a timeout).
Items = list[str] | None


def parse(line: bytes) -> dict[str, Any] | None:
    """The JSON object on a line, or None (not JSON, not an object)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):  # nested deeper than json reads: no message of the protocol's either
        return None
    return message if isinstance(message, dict) else None


def dump(message: dict[str, Any]) -> bytes:
    """A message as one line, with its newline."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def own_id(message: dict[str, Any]) -> bool:
    """Whether a message answers one of the inspector's own requests (its id starts with :data:`ID_PREFIX`)."""
    request_id = message.get("id")
    return isinstance(request_id, str) and request_id.startswith(ID_PREFIX) and "method" not in message


def capabilities(result: Any) -> list[str]:
    """The kinds of :data:`KINDS` an ``initialize`` or ``server/discover`` result's capabilities declare."""
    caps = result.get("capabilities") if isinstance(result, dict) else None
    return [kind for kind in KINDS if isinstance(caps, dict) and kind in caps]


def declaring_list_changed(message: dict[str, Any]) -> dict[str, Any] | None:
    """``message`` (an answer to ``initialize`` or ``server/discover``) with ``listChanged: true`` for each kind of
    :data:`KINDS` its capabilities declare without it; None when there is nothing to add."""
    result = message.get("result")
    if not isinstance(result, dict) or not isinstance(caps := result.get("capabilities"), dict):
        return None
    added = {kind: {**caps[kind], "listChanged": True} for kind in KINDS
             if isinstance(caps.get(kind), dict) and caps[kind].get("listChanged") is not True}
    if not added:
        return None
    return {**message, "result": {**result, "capabilities": {**caps, **added}}}


def error_answer(request_id: Any, sentence: str) -> bytes:
    """A JSON-RPC error answer to a request the inspector answers itself (the server is not there)."""
    return dump({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32000, "message": sentence}})


@dataclass
class ClientSession:
    """What the client said that matters to a reload (see the module). Feed it every line each way."""

    initialize: dict[str, Any] | None = None  #: the client's initialize request (up to 2025-11-25)
    initialized: bytes | None = None  #: its notifications/initialized line
    discover: dict[str, Any] | None = None  #: its server/discover request (2026-07-28)
    meta: dict[str, Any] | None = None  #: the last per-request ``_meta`` naming a protocol version (2026-07-28)
    #: the kinds the server's answer to the client's handshake (or the last replayed one) declared
    capabilities: list[str] = field(default_factory=list)
    #: requests the server has not answered, in the order they were sent: id key -> (id, line)
    outstanding: dict[IdKey, tuple[Any, bytes]] = field(default_factory=dict)
    #: subscriptions/listen streams: id key -> (id, filter)
    listens: dict[IdKey, tuple[Any, dict[str, Any]]] = field(default_factory=dict)
    #: subscriptions whose acknowledgement the client has had (a new server's is not passed on again)
    acknowledged: set[IdKey] = field(default_factory=set)
    _handshake_id: IdKey | None = None

    @property
    def modern(self) -> bool:
        """2026-07-28: no initialize was seen, and a discover or a versioned ``_meta`` was."""
        return self.initialize is None and (self.discover is not None or self.meta is not None)

    @property
    def known(self) -> bool:
        """Whether the client said enough for a new server to be spoken to as the client would."""
        return self.initialize is not None or self.modern

    def from_client(self, line: bytes, message: dict[str, Any] | None) -> None:
        """A line the client sent (``message``: its JSON object, or None)."""
        if message is None:
            return
        method = message.get("method")
        params = message.get("params")
        if isinstance(params, dict) and isinstance(params.get("_meta"), dict) and META_VERSION in params["_meta"]:
            self.meta = params["_meta"]
        if not isinstance(method, str):
            if "id" in message:  # the client's answer to a server's request: nothing to remember
                return
            return
        if "id" not in message:
            if method == "notifications/initialized":
                self.initialized = line if line.endswith(b"\n") else line + b"\n"
            elif method == "notifications/cancelled" and isinstance(params, dict):
                self._forget(params.get("requestId"))
            return
        if method == "initialize":
            self.initialize, self._handshake_id = message, id_key(message["id"])
        elif method == "server/discover":
            self.discover, self._handshake_id = message, id_key(message["id"])
        elif method == "subscriptions/listen":
            notifications = params.get("notifications") if isinstance(params, dict) else None
            self.listens[id_key(message["id"])] = (message["id"], notifications if isinstance(notifications, dict)
                                                 else {})
        self.outstanding[id_key(message["id"])] = (message["id"], line if line.endswith(b"\n") else line + b"\n")

    def answers_handshake(self, message: dict[str, Any]) -> bool:
        """Whether ``message`` is the server's answer to the client's own handshake (not a replayed one)."""
        return "method" not in message and "id" in message and self._handshake_id is not None \
            and id_key(message["id"]) == self._handshake_id

    def from_server(self, message: dict[str, Any]) -> bool:
        """A message the server sent; returns False when the client must not get it (a new server's
        acknowledgement of a subscription the client already had acknowledged)."""
        method = message.get("method")
        if method == "notifications/subscriptions/acknowledged":
            params = message.get("params")
            meta = params.get("_meta") if isinstance(params, dict) else None
            sub = id_key(meta.get(META_SUBSCRIPTION)) if isinstance(meta, dict) else None
            if sub is not None and sub in self.acknowledged:
                return False
            if sub is not None:
                self.acknowledged.add(sub)
            return True
        if method is None and "id" in message:
            key = id_key(message["id"])
            self.outstanding.pop(key, None)
            self.listens.pop(key, None)  # a listen's answer ends its stream
            if key == self._handshake_id and isinstance(message.get("result"), dict):
                self.capabilities = capabilities(message["result"])
        return True

    def _forget(self, request_id: Any) -> None:
        if request_id is not None:
            self.outstanding.pop(id_key(request_id), None)
            self.listens.pop(id_key(request_id), None)

    def take_outstanding(self) -> list[tuple[Any, bytes]]:
        """The requests not answered (sent again to a new server, or answered with an error), forgotten here."""
        taken = list(self.outstanding.values())
        self.outstanding.clear()
        return taken

    def handshake(self, new_id: Callable[[], str]) -> tuple[bytes | None, list[bytes]]:
        """What a new server is told first: (a request whose answer the inspector waits for and swallows, lines
        sent after that answer). (None, []) when the client said nothing yet that a server must hear."""
        if self.initialize is not None:
            after = [self.initialized] if self.initialized is not None else []
            return dump({**self.initialize, "id": new_id()}), after
        if self.discover is not None:
            return dump({**self.discover, "id": new_id()}), []
        if self.meta is not None:
            return dump({"jsonrpc": "2.0", "id": new_id(), "method": "server/discover",
                         "params": {"_meta": self.meta}}), []
        return None, []

    def request(self, method: str, params: dict[str, Any], new_id: Callable[[], str]) -> tuple[str, bytes]:
        """(id, line) of one of the inspector's own requests, with the client's ``_meta`` where it needs one."""
        if self.modern and self.meta is not None:
            params = {**params, "_meta": self.meta}
        request_id = new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params:
            message["params"] = params
        return request_id, dump(message)

    def changed_notifications(self, kinds: Iterable[str]) -> list[bytes]:
        """The notifications that tell the client these kinds changed: one each (up to 2025-11-25), or one each
        per ``subscriptions/listen`` stream that asked for it, carrying its id (2026-07-28)."""
        lines = []
        for kind in kinds:
            method = f"notifications/{kind}/list_changed"
            if not self.modern:
                lines.append(dump({"jsonrpc": "2.0", "method": method}))
                continue
            for sub_id, wanted in self.listens.values():
                if wanted.get(LISTEN_KEYS[kind]):
                    lines.append(dump({"jsonrpc": "2.0", "method": method,
                                       "params": {"_meta": {META_SUBSCRIPTION: sub_id}}}))
        return lines


class Listing:
    """One server's tools, prompts and resources, asked for page by page (see the module).

    ``start()`` gives the first requests; ``answer(message)`` takes the answer to one of them and gives the
    requests that follow (the next page); ``done`` once every kind is complete; ``items`` then holds each
    declared kind's items (None for a kind whose listing failed or was cut short by :meth:`give_up`).
    """

    def __init__(self, session: ClientSession, kinds: Iterable[str], new_id: Callable[[], str]) -> None:
        self.session = session
        self.new_id = new_id
        self.items: dict[str, Items] = {kind: [] for kind in kinds}
        self._pending: dict[str, tuple[str, int]] = {}  # request id -> (kind, page)

    def start(self) -> list[bytes]:
        return [self._ask(kind, None, 1) for kind in self.items]

    @property
    def done(self) -> bool:
        return not self._pending

    def answer(self, message: dict[str, Any]) -> list[bytes]:
        asked = self._pending.pop(str(message.get("id")), None)
        if asked is None:
            return []
        kind, page = asked
        result = message.get("result")
        found = result.get(kind) if isinstance(result, dict) else None
        current = self.items[kind]
        if not isinstance(found, list) or current is None:
            self.items[kind] = None
            return []
        current.extend(json.dumps(item, sort_keys=True, ensure_ascii=False) for item in found)
        cursor = result.get("nextCursor") if isinstance(result, dict) else None
        if isinstance(cursor, str) and cursor:
            if page >= MAX_PAGES:
                self.items[kind] = None  # cut short: not known
                return []
            return [self._ask(kind, cursor, page + 1)]
        current.sort()
        return []

    def give_up(self) -> None:
        """Kinds still being listed are not known (the server did not answer in time)."""
        for kind, _page in self._pending.values():
            self.items[kind] = None
        self._pending.clear()

    def _ask(self, kind: str, cursor: str | None, page: int) -> bytes:
        request_id, line = self.session.request(f"{kind}/list", {"cursor": cursor} if cursor else {}, self.new_id)
        self._pending[request_id] = (kind, page)
        return line


def changed_kinds(before: dict[str, Items] | None, after: dict[str, Items]) -> list[str]:
    """The kinds whose lists differ between two listings (a kind declared by one server only counts; a kind
    either side could not list counts, as the client then lists it again at no harm). ``before`` None: the old
    server could not be asked (it was not running): every kind the new one declares."""
    if before is None:
        return [kind for kind in KINDS if kind in after]
    changed = []
    for kind in KINDS:
        if kind not in before and kind not in after:
            continue
        old, new = before.get(kind), after.get(kind)
        if old is None or new is None or old != new:
            changed.append(kind)
    return changed
