"""A JSON-RPC batch of the client's, served (sans-io): which revisions allow one, and the recorded batch it repeats.

MCP 2025-03-26 is the only revision whose JSON-RPC layer takes batches ("MCP implementations MUST support
receiving JSON-RPC batches", https://modelcontextprotocol.io/specification/2025-03-26/basic#batching; 2025-06-18
removed them). A twin whose session speaks another revision answers a batch as a server of that revision does:
one Invalid Request error, id null (:func:`batch_refusal`). A twin of 2025-03-26 answers the batch with a batch:
the recorded answer of a recorded batch with the same members (:func:`recorded_batch`), else each member matched
as a single request would be (:meth:`~inspector.core.serve.twin.Twin.receive`), the responses gathered in one
array, notifications getting no member and a batch of notifications and responses only getting nothing. Faults
act on the batch as on a request (:class:`~inspector.core.serve.conduct.Conductor`): latency holds the whole
answer, junk comes before it, close-after counts each request in it, and ``drop`` and ``error-rate`` act on each
member (:func:`faulted_batch`).

A capture pairs a batch of the client's with the server's batch that answered it (``reply_to``), as one request
without a method (:class:`~inspector.core.serve.index.ServeIndex` keeps it under the method ``""``).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from inspector.core.protocol.revisions import BATCH_REVISIONS
from inspector.core.serve.faults import Faults, fault_error
from inspector.core.serve.matcher import CursorMap, request_key
from inspector.core.wire.ids import id_key

#: The method a recorded batch of the client's is kept under among the recorded requests.
BATCH_METHOD = ""
#: At most this many recorded batches are compared with the client's.
BATCHES_COMPARED = 256


def batch_refusal_text(revision: str | None) -> str | None:
    """The Invalid Request sentence for a batch sent in ``revision`` (None: batches are allowed)."""
    if revision in BATCH_REVISIONS:
        return None
    spoken = f"MCP {revision}" if revision else "the revision this session speaks"
    return (f"Invalid Request: {spoken} takes no JSON-RPC batches (only 2025-03-26 allowed them); "
            "send each message on its own")


def batch_route(members: list[Any]) -> list[Any] | None:
    """The key an HTTP host waits on for the answer to a batch (the ids of its requests), None when the batch has
    no request (it gets no answer)."""
    ids = [member["id"] for member in members if _is_request(member)]
    return ["batch", *ids] if ids else None


def member_key(member: Any, cursors: CursorMap | None = None) -> tuple[str, bytes]:
    """What a batch member asks, volatile fields aside: its kind and its request key."""
    if isinstance(member, dict) and isinstance(member.get("method"), str):
        kind = "request" if "id" in member else "notification"
        return kind, request_key(member["method"], member.get("params"), cursors)
    text = json.dumps(member, sort_keys=True, ensure_ascii=False).encode("utf-8", errors="surrogatepass")
    return "other", text


def recorded_batch(book: Any, members: list[Any], cursors: CursorMap | None = None) -> tuple[bytes, int] | None:
    """The recorded answer of a recorded batch with the same members as ``members`` (in the same order), its ids
    those of the client's requests: (the answer's JSON text, the answer's row); None when the capture has none.
    ``book`` is the :class:`~inspector.core.serve.index.ServeIndex`."""
    positions = book.positions(BATCH_METHOD)
    if not positions:
        return None
    mine = [member_key(member, cursors) for member in members]
    for position in positions[:BATCHES_COMPARED]:
        request_row, answer_row = book.requests[position], book.answers[position]
        try:
            recorded = json.loads(book.raw(request_row))
        except (ValueError, RecursionError):
            continue
        if not isinstance(recorded, list) or [member_key(member) for member in recorded] != mine:
            continue
        try:
            answer = json.loads(book.raw(answer_row))
        except (ValueError, RecursionError):
            continue
        ids = {id_key(old["id"]): new["id"] for old, new in zip(recorded, members, strict=True) if _is_request(old)}
        if isinstance(answer, list):
            answer = [_with_id(item, ids) for item in answer]
        else:
            answer = _with_id(answer, ids)
        return _dumps(answer), answer_row
    return None


def faulted_batch(line: bytes, members: list[Any], faults: Faults, faulted: Counter[str]) -> bytes | None:
    """The twin's batch of answers ``line`` with the faults that act on each member: ``drop=METHOD`` leaves a
    request's response out, ``error-rate`` puts the internal error in its place (``initialize`` aside, as alone);
    each counted in ``faulted``. None when every response was dropped (the batch gets no answer); ``line`` itself
    when nothing changed or it is no batch of answers."""
    if not (faults.drop or faults.error_rate) or not line.startswith(b"["):
        return line
    try:
        answers = json.loads(line)
    except ValueError:
        return line
    methods = {id_key(member["id"]): member["method"] for member in members if _is_request(member)}
    kept: list[Any] = []
    for answer in answers:
        method = methods.get(id_key(answer.get("id"))) if isinstance(answer, dict) else None
        if method is None or method in ("initialize", "server/discover"):
            kept.append(answer)
        elif method in faults.drop:
            faulted["drop"] += 1
        elif faults.errs():
            faulted["error-rate"] += 1
            kept.append(fault_error(answer["id"], faults.spec("error-rate")))
        else:
            kept.append(answer)
    if not kept:
        return None
    return line if kept == answers else _dumps(kept)


def _is_request(member: Any) -> bool:
    return isinstance(member, dict) and "id" in member and isinstance(member.get("method"), str)


def _with_id(item: Any, ids: dict[Any, Any]) -> Any:
    if isinstance(item, dict) and "id" in item:
        key = id_key(item["id"])
        if key in ids:
            return {**item, "id": ids[key]}
    return item


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", errors="surrogatepass")
