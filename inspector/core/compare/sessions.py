"""What a capture says about its server, for comparing: who the server is, its interface (the items of the
last complete ``tools/list``, ``resources/list``, ``resources/templates/list`` and ``prompts/list`` it answered)
and its exchanges (each request the client sent, with the answer and its latency).

Read in one pass over the capture (:func:`inspector.core.capture.reader.iter_capture`); only the messages of
requests and their answers are kept, not the capture's other events. A listing is complete when its last page
has no ``nextCursor``; a later complete listing replaces an earlier one (the server may have changed its list
and said so with ``list_changed``), and a kind the capture never listed completely is unknown (``None``),
which a comparison says instead of calling every item added or removed.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from inspector.core.capture.format import CaptureError
from inspector.core.capture.reader import iter_capture
from inspector.core.explore.listing import LISTS
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind

#: Each kind and the member of an item that names it.
KEYS: dict[str, str] = {"tools": "name", "resources": "uri", "templates": "uriTemplate", "prompts": "name"}
#: The list methods, by method: the kind they list.
LIST_METHODS: dict[str, str] = {method: kind for kind, (method, _field, _cap) in LISTS.items()}
#: Requests that are no behaviour of the server's own to compare: the handshake and the lists (the interface).
#: The prefix of the ``_meta`` members the protocol reserves for itself (2026-07-28: every request and result).
PROTOCOL_META = "io.modelcontextprotocol/"
NOT_BEHAVIOUR = frozenset({"initialize", "server/discover", *LIST_METHODS})


class CompareError(Exception):
    """A capture or server cannot be compared; ``str()`` is a sentence."""


@dataclass
class Exchange:
    """One request the client sent and what came of it."""

    seq: int  #: the request's seq in its capture
    method: str
    params: Any
    response: dict[str, Any] | None = None  #: the whole answer (result or error); None when none came
    latency: float | None = None  #: seconds
    response_seq: int | None = None

    @property
    def status(self) -> str:
        """``result``, ``error`` or ``no answer``."""
        if self.response is None:
            return "no answer"
        return "error" if "error" in self.response else "result"

    @property
    def result(self) -> Any:
        return self.response.get("result") if self.response is not None else None

    def label(self) -> str:
        """``tools/call echo``, ``resources/read demo://x``, ``prompts/get greet``, else the method."""
        params = self.params if isinstance(self.params, dict) else {}
        for member in ("name", "uri"):
            if isinstance(params.get(member), str):
                return f"{self.method} {params[member]}"
        return self.method

    def key(self) -> str:
        """What makes two requests "the same request": the method and the params, less the ``_meta`` the client
        adds (progress tokens, the 2026-07-28 protocol fields, trace context), as canonical JSON."""
        return self.method + " " + json.dumps(plain_params(self.params), sort_keys=True, ensure_ascii=False,
                                              separators=(",", ":"))


def without_protocol_meta(response: dict[str, Any]) -> dict[str, Any]:
    """An answer without the members of its result's ``_meta`` that the protocol itself puts in every result
    (``io.modelcontextprotocol/serverInfo`` in the 2026-07-28 era): they say which server answered, which the
    comparison already names, not what it answered."""
    result = response.get("result")
    meta = result.get("_meta") if isinstance(result, dict) else None
    if not isinstance(meta, dict) or not any(str(k).startswith(PROTOCOL_META) for k in meta):
        return response
    assert isinstance(result, dict)
    kept = {k: v for k, v in meta.items() if not str(k).startswith(PROTOCOL_META)}
    trimmed = {k: v for k, v in result.items() if k != "_meta"}
    if kept:
        trimmed["_meta"] = kept
    return {**response, "result": trimmed}


def plain_params(params: Any) -> Any:
    """``params`` without ``_meta`` (the client's own bookkeeping, not what is asked)."""
    if isinstance(params, dict) and "_meta" in params:
        return {k: v for k, v in params.items() if k != "_meta"}
    return params


@dataclass
class ServerRecord:
    """A capture's server: its name and version, the interface it listed, the exchanges."""

    source: str  #: the capture's path, or what the live server was
    name: str | None = None
    version: str | None = None
    protocol_version: str | None = None
    instructions: str | None = None  #: the server's instructions (initialize's, or server/discover's)
    #: whether the handshake's answer was seen, so ``instructions`` None means the server gave none
    instructions_known: bool = False
    #: kind -> the seq of the answer that completed its last complete listing (where a finding in it points)
    listed_seq: dict[str, int] = field(default_factory=dict)
    #: kind -> key -> item; a kind missing here was never listed completely
    interface: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    exchanges: list[Exchange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  #: what could not be had from the server, in sentences

    def describe(self) -> str:
        """``everything 2.0.0 (session.jsonl)``."""
        who = " ".join(x for x in (self.name, self.version) if x) or "unnamed server"
        return f"{who} ({self.source})"


@dataclass
class _Listing:
    kind: str
    items: list[dict[str, Any]] = field(default_factory=list)


def read_server(path: str | os.PathLike[str]) -> ServerRecord:
    """The server as the capture at ``path`` saw it. Raises CompareError with a sentence."""
    record = ServerRecord(os.fspath(path))
    requests: dict[int, Exchange] = {}
    open_listings: dict[str, _Listing] = {}
    warnings: list[str] = []
    try:
        for item in iter_capture(path, warnings):
            if isinstance(item, Event):
                _take(record, item, requests, open_listings)
    except CaptureError as exc:
        raise CompareError(str(exc)) from None
    return record


def _take(record: ServerRecord, event: Event, requests: dict[int, Exchange],
          open_listings: dict[str, _Listing]) -> None:
    rpc = event.rpc
    if event.kind != Kind.MESSAGE or rpc is None:
        return
    if event.dir == Direction.C2S and rpc.kind == jsonrpc.REQUEST and rpc.method:
        obj = _json(event)
        params = obj.get("params") if isinstance(obj, dict) else None
        exchange = Exchange(event.seq, rpc.method, params)
        requests[event.seq] = exchange
        if rpc.method not in NOT_BEHAVIOUR:
            record.exchanges.append(exchange)
        return
    if event.dir != Direction.S2C or rpc.kind not in (jsonrpc.RESPONSE, jsonrpc.ERROR):
        return
    reply_to = event.data.get("reply_to")
    answered = requests.get(reply_to) if isinstance(reply_to, int) else None
    if answered is None or answered.response is not None:
        return
    _answer(record, answered, event, open_listings)


def _answer(record: ServerRecord, exchange: Exchange, event: Event, open_listings: dict[str, _Listing]) -> None:
    obj = _json(event)
    if not isinstance(obj, dict):
        return
    exchange.response = obj
    exchange.response_seq = event.seq
    latency = event.data.get("latency")
    exchange.latency = float(latency) if isinstance(latency, (int, float)) else None
    result = obj.get("result")
    if exchange.method in ("initialize", "server/discover") and isinstance(result, dict):
        _server_info(record, result)
    kind = LIST_METHODS.get(exchange.method)
    if kind is not None and isinstance(result, dict):
        _page(record, kind, exchange.params, result, open_listings, event.seq)


def _server_info(record: ServerRecord, result: dict[str, Any]) -> None:
    """``initialize``'s serverInfo, or a 2026-07-28 ``server/discover``'s (in the result's ``_meta``)."""
    found = result.get("_meta")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    info = result.get("serverInfo") or meta.get(f"{PROTOCOL_META}serverInfo")
    if isinstance(info, dict):
        record.name = info.get("name") if isinstance(info.get("name"), str) else record.name
        record.version = info.get("version") if isinstance(info.get("version"), str) else record.version
    version = result.get("protocolVersion")
    supported = result.get("supportedVersions")
    if not isinstance(version, str) and isinstance(supported, list) and supported:
        version = supported[-1]
    if isinstance(version, str):
        record.protocol_version = version
    record.instructions_known = True
    record.instructions = result["instructions"] if isinstance(result.get("instructions"), str) else None


def _page(record: ServerRecord, kind: str, params: Any, result: dict[str, Any],
          open_listings: dict[str, _Listing], seq: int) -> None:
    """One page of a listing: the first (no cursor asked) starts it, the last (no nextCursor) completes it."""
    field_name = LISTS[kind][1]
    items = result.get(field_name)
    if not isinstance(items, list):
        return
    first = not (isinstance(params, dict) and params.get("cursor") is not None)
    listing = _Listing(kind) if first else open_listings.get(kind)
    if listing is None:  # a later page whose first page is not in the capture
        return
    listing.items.extend(item for item in items if isinstance(item, dict))
    if result.get("nextCursor") is None:
        record.interface[kind] = keyed(kind, listing.items)
        record.listed_seq[kind] = seq
        open_listings.pop(kind, None)
    else:
        open_listings[kind] = listing


def keyed(kind: str, items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Items by their key (a tool's name, a resource's URI...); an item without one is keyed by its place."""
    key = KEYS[kind]
    out: dict[str, dict[str, Any]] = {}
    for index, item in enumerate(items):
        name = item.get(key)
        out[name if isinstance(name, str) else f"#{index}"] = item
    return out


def _json(event: Event) -> Any:
    try:
        return event.json()
    except ValueError:
        return None
