"""Multi round-trip requests (2026-07-28): a request answered with ``input_required`` is answered and sent again.

https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr: the server answers
``tools/call``, ``prompts/get`` or ``resources/read`` with ``resultType: "input_required"``, ``inputRequests``
(elicitation, sampling, roots requests keyed by the server) and maybe ``requestState``. The client gathers the
answers (the window's forms, the headless ``--answer`` policies: :func:`answer_input_requests`) and
retries the original request with ``inputResponses`` and the exact ``requestState`` (none when the server
sent none) under a new JSON-RPC id, at most :data:`MAX_INPUT_ROUNDS` times.

The rounds of one call are one conversation: once the first ``input_required`` comes, a span opens
(:mod:`inspector.core.session.spans`) naming the first request and its answer, and every retry and its answer
is marked with it, so the timeline draws the call as one span.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from inspector.core.session.outcomes import RpcError, result_of
from inspector.core.wire.events import Event

if TYPE_CHECKING:
    from inspector.core.session.session import Session

#: Bound on input_required round trips for one request: a server that asks forever is stopped here.
MAX_INPUT_ROUNDS = 5
#: Responses up to this size are parsed to see whether they ask for input; bigger ones are searched first.
INPUT_SCAN_BYTES = 1 << 20


async def request_in_rounds(session: Session, obj: dict[str, Any], timeout: float, cancel_on_timeout: bool) -> Event:
    """Send ``obj`` and answer its ``input_required`` rounds; the last response (a result, an error, or an
    ``input_required`` left unanswered: no way to answer, or :data:`MAX_INPUT_ROUNDS` reached)."""
    response = await session.request_one_round(obj, timeout, cancel_on_timeout)
    span: str | None = None
    method = str(obj.get("method"))
    first_id = obj.get("id")
    for retry in range(1, MAX_INPUT_ROUNDS + 1):
        result = input_required(response)
        if result is None:
            return response
        asked = a if isinstance(a := result.get("inputRequests"), dict) else {}
        names = ", ".join(f"{v.get('method')} ({k})" for k, v in asked.items() if isinstance(v, dict))
        if span is None:
            span = session.spans.new("rounds")
            reply_to = response.data.get("reply_to")
            session.note(f"{method} #{json.dumps(first_id)} is a multi-round call: the server asked for input",
                         span=span, span_label=f"{method} #{json.dumps(first_id)} in rounds",
                         members=[m for m in (reply_to, response.seq) if type(m) is int])
        if not can_answer(session, asked):
            session.note(f"{method} needs input: {names or 'nothing named'}; no answer policy, so it stays "
                         "unanswered", request_id=obj.get("id"), span=span)
            return response
        session.note(f"{method} needs input: {names or 'nothing named'}; answering and retrying (round "
                     f"{retry + 1})", request_id=obj.get("id"), span=span)
        responses = await answer_input_requests(session, asked)
        params = dict(obj.get("params") or {})
        # the retry echoes the state of the last answer exactly, and none when it had none (the spec's MUST NOT)
        params.pop("requestState", None)
        params["inputResponses"] = responses
        if "requestState" in result:
            params["requestState"] = result["requestState"]
        obj = {**obj, "id": session.next_id(), "params": params}
        session.spans.claim(span, obj["id"])
        response = await session.request_one_round(obj, timeout, cancel_on_timeout)
    if input_required(response) is not None:
        session.note(f"{method} still needs input after {MAX_INPUT_ROUNDS} rounds; stopped answering",
                     request_id=obj.get("id"), span=span)
    return response


def can_answer(session: Session, asked: dict[str, Any]) -> bool:
    """Whether ``session`` has a way to answer every server request of an ``inputRequests`` map (headless without
    an answer policy it answers only ``roots/list`` and ``ping``)."""
    return session.server_requests.handler is not None or all(
        not isinstance(v, dict) or v.get("method") in ("roots/list", "ping") for v in asked.values())


async def answer_input_requests(session: Session, asked: dict[str, Any]) -> dict[str, Any]:
    """The ``inputResponses`` for an ``inputRequests`` map (2026-07-28 multi round-trip requests, and a task's
    input in the tasks extension): each server request answered as a standalone one would be, by the session's
    own answers (``roots/list``, ``ping``) or its handler (the window's forms, the headless ``--answer``
    policies); an error answer becomes ``{"error": ...}``."""
    responses: dict[str, Any] = {}
    for key, ask in asked.items():
        if isinstance(ask, dict):
            try:
                responses[key] = await session.server_requests.handle(str(ask.get("method")), ask.get("params"))
            except RpcError as exc:
                responses[key] = {"error": {"code": exc.code, "message": exc.message}}
    return responses


def input_required(response: Event) -> dict[str, Any] | None:
    """The ``input_required`` result of ``response``, or None when it is anything else. A big response is
    searched before it is parsed (a 50 MB result parsed on the event loop would freeze the window): JSON
    encoders write that ASCII value as it is, so a result whose bytes do not hold it is not one."""
    if response.size > INPUT_SCAN_BYTES and b"input_required" not in response.raw:
        return None
    result, _error = result_of(response)
    if isinstance(result, dict) and result.get("resultType") == "input_required":
        return result
    return None
