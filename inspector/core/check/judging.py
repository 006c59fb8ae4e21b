"""The per-message protocol rules (:mod:`inspector.core.protocol`) applied to a check's sessions: what the
*server* sent is judged against its revision's schema and the lifecycle rules, and each finding joins the
check report. The client's messages are left out: a check sends broken ones on purpose (invalid JSON,
malformed params, an unknown method), and those are the probes, not findings; so are the server's answers to
input it could not parse (-32700, -32600: JSON-RPC says their id is null, which an MCP schema's RequestId
does not allow, and the probe caused it)."""

from __future__ import annotations

from inspector.core.check.checks import MUST, SHOULD, ExtraFinding
from inspector.core.protocol.judge import ProtocolJudge
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event


def judge_server_messages(events: list[Event], revision: str | None) -> list[ExtraFinding]:
    """Findings on the server's messages of one check session (``revision``: the one it negotiated)."""
    judge = ProtocolJudge(revision)
    judge.feed(events)
    judge.judge_deferred()
    server_seqs = {event.seq for event in events if event.dir == Direction.S2C and not _answers_broken_input(event)}
    return [ExtraFinding(f.rule, MUST if f.severity == "error" else SHOULD, f.text, f.revision or revision, f.seq)
            for seq in sorted(judge.findings) if seq in server_seqs for f in judge.findings[seq]]


#: JSON-RPC errors for input that is not a valid request: the answers to the check's deliberately broken lines
_BROKEN_INPUT_CODES = frozenset({-32700, -32600})


def _answers_broken_input(event: Event) -> bool:
    if event.rpc is None or event.rpc.kind != jsonrpc.ERROR:
        return False
    try:
        error = event.json().get("error")
    except (ValueError, AttributeError):
        return False
    return isinstance(error, dict) and error.get("code") in _BROKEN_INPUT_CODES
