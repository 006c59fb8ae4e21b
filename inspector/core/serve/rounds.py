"""Multi-round calls of a served capture, replayed as one conversation (sans-io).

A 2026-07-28 server may answer ``tools/call``, ``prompts/get`` or ``resources/read`` with ``resultType:
"input_required"`` (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr): the client
gathers the ``inputRequests`` and sends the request again under a new id with ``inputResponses`` and the
answer's ``requestState`` echoed exactly. What a client answers is its user's or model's (a form filled in, a
sampled text), so a retry seldom repeats the recorded one; matched by its params it would miss.

:class:`Rounds` keeps the calls under way instead: once the twin served a recorded ``input_required`` answer,
the client's retry (the same method and params, ``inputResponses``, ``requestState`` and ``_meta`` aside) gets
the recorded next round of that call, whatever input it carries, round after round, until the final answer.
Where the client's ``inputResponses`` (or ``requestState``) differ from the recorded retry's, :meth:`Rounds.retry`
says how in a sentence: a finding of the served capture (``--out``), not an error.

A task (the tasks extension, https://modelcontextprotocol.io/extensions/tasks) asks for input the same way: its
``tasks/get`` status is ``input_required`` and the client answers with ``tasks/update`` (``taskId``,
``inputResponses``). :meth:`Rounds.update` gives such an update the recorded update of the same task, in recorded
order, whatever input it carries (the difference said as for a retry). The polls themselves need nothing of this
module: identical ``tasks/get`` requests get the recorded statuses in order, then the last (final) one again
(:class:`~inspector.core.serve.matcher.Matcher`).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from inspector.core.serve.matcher import CursorMap, RequestBook, difference_text, differences, request_key

#: The requests a server may answer with input_required (the spec's "Supported Requests").
ROUND_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
#: Requests that carry the client's input to a task under way.
UPDATE_METHODS = frozenset({"tasks/update"})
#: The params of a retry that carry the rounds, not what the request asks.
ROUND_PARAMS = ("inputResponses", "requestState")
#: At most this many calls wait for their retry (a client that never retries leaves them here, the oldest dropped).
PENDING_KEPT = 64
#: At most this many later recorded requests of the method are searched for a call's recorded retry.
RETRY_SEARCHED = 1000
#: The finding on a retry whose input differs from the recorded retry's (info: the client did nothing wrong).
ROUND_DIFFERS = "serve-round-differs"


@dataclass(frozen=True, slots=True)
class _Pending:
    """A call answered with input_required: the recorded retry that comes next (its position), and what the
    client's retry is known by."""

    method: str
    key: bytes  #: request_key of the params without the round's members
    state: Any  #: the requestState the answer gave (None: none)
    retry: int


def base_params(params: Any) -> Any:
    """``params`` without the members that carry the rounds."""
    if not isinstance(params, dict):
        return params
    return {name: value for name, value in params.items() if name not in ROUND_PARAMS}


def input_required(answer: dict[str, Any]) -> dict[str, Any] | None:
    """The ``input_required`` result of a recorded answer, else None."""
    result = answer.get("result")
    return result if isinstance(result, dict) and result.get("resultType") == "input_required" else None


@dataclass
class Rounds:
    """The multi-round calls the twin has under way (see the module)."""

    book: RequestBook
    pending: list[_Pending] = field(default_factory=list)
    _updates: dict[bytes, int] = field(default_factory=dict)  # an update's key, input aside -> how many served

    def answered(self, position: int, answer: dict[str, Any]) -> None:
        """The twin served the recorded answer of ``position``: when it asks for input, the call's recorded retry
        is the next round the client's retry gets."""
        result = input_required(answer)
        method = self.book.method(position)
        if result is None or method not in ROUND_METHODS:
            return
        base = base_params(self.book.params(position))
        key = request_key(method, base)
        state = result.get("requestState")
        positions = self.book.positions(method)
        start = bisect_right(positions, position)
        for later in positions[start:start + RETRY_SEARCHED]:
            params = self.book.params(later)
            if request_key(method, base_params(params)) != key:
                continue
            if state is not None and (not isinstance(params, dict) or params.get("requestState") != state):
                continue
            if len(self.pending) >= PENDING_KEPT:
                self.pending.pop(0)
            self.pending.append(_Pending(method, key, state, later))
            return

    def retry(self, method: str, params: Any, cursors: CursorMap | None = None) -> tuple[int, str | None] | None:
        """The recorded round the client's retry gets, and the sentence on how its input differs from the recorded
        retry's (None: it is the same); None when it is no retry of a call under way."""
        if method not in ROUND_METHODS or not isinstance(params, dict) \
                or not any(name in params for name in ROUND_PARAMS):
            return None
        key = request_key(method, base_params(params), cursors)
        candidates = [p for p in self.pending if p.method == method and p.key == key]
        if not candidates:
            return None
        state = params.get("requestState")
        chosen = next((p for p in candidates if p.state is not None and p.state == state), candidates[0])
        self.pending.remove(chosen)
        return chosen.retry, self._differs(method, params, chosen.retry, "retry")

    def update(self, method: str, params: Any, cursors: CursorMap | None = None) -> tuple[int, str | None] | None:
        """The recorded ``tasks/update`` the client's gets (of the same task, the recorded ones in order, then the
        last again), and the sentence on how its input differs (None: the same); None when none was recorded."""
        if method not in UPDATE_METHODS or not isinstance(params, dict):
            return None
        key = request_key(method, base_params(params), cursors)
        found = [position for position in self.book.positions(method)[:RETRY_SEARCHED]
                 if request_key(method, base_params(self.book.params(position))) == key]
        if not found:
            return None
        served = self._updates.get(key, 0)
        self._updates[key] = served + 1
        position = found[min(served, len(found) - 1)]
        return position, self._differs(method, params, position, "update")

    def _differs(self, method: str, params: dict[str, Any], position: int, what: str) -> str | None:
        """How the client's input differs from the recorded request's at ``position``, in a sentence."""
        recorded = self.book.params(position)
        mine = {name: params[name] for name in ROUND_PARAMS if name in params}
        theirs = {name: recorded[name] for name in ROUND_PARAMS if isinstance(recorded, dict) and name in recorded}
        if not differences(theirs, mine):
            return None
        text = difference_text(method, theirs, method, mine)
        return (f"the client's {what} {self.book.label(position)} differs from the recorded one in {text}; served "
                f"the recorded {'round' if what == 'retry' else 'answer'}")
