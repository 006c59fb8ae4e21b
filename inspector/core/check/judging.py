"""The per-message protocol rules (:mod:`inspector.core.protocol`) applied to a check's sessions: what the
*server* sent is judged against its revision's schema and the lifecycle rules, and each finding joins the
check report. The client's messages are left out: a check sends broken ones on purpose (invalid JSON,
malformed params, an unknown method), and those are the probes, not findings; so are the server's answers to
input it could not parse (-32700, -32600: JSON-RPC says their id is null, which an MCP schema's RequestId
does not allow, and the probe caused it).

The wire layer's own findings on the server's messages join them (a response to an id already answered, to an
id never sent, a framing error on stdout): the check's capture linted gives the same MUSTs the report does.
Each rule is listed at most :data:`PER_RULE` times per session, then counted, so a flood of broken lines
makes a short report."""

from __future__ import annotations

from inspector.core.check.checks import MUST, SHOULD, ExtraFinding
from inspector.core.protocol.judge import ProtocolJudge
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind

#: Findings of one rule listed per session; the rest are counted in one more finding.
PER_RULE = 20


def judge_server_messages(events: list[Event], revision: str | None) -> list[ExtraFinding]:
    """Findings on the server's messages of one check session (``revision``: the one it negotiated)."""
    judge = ProtocolJudge(revision)
    judge.feed(events)
    judge.judge_deferred()
    server = {event.seq: event for event in events if event.dir == Direction.S2C and not _answers_broken_input(event)}
    found = [(f.seq, f.rule, MUST if f.severity == "error" else SHOULD, f.text, f.revision or revision)
             for seq in judge.findings if seq in server for f in judge.findings[seq]]
    for event in server.values():  # the wire's own MUSTs: pairing, batches, framing
        if event.kind == Kind.FRAMING_ERROR:
            found.append((event.seq, "framing", MUST, f"not an MCP message on the server's output: {event.reason}",
                          revision))
        found += [(event.seq, w.code, MUST, w.text, revision) for w in event.findings if w.severity == "error"]
    found.sort(key=lambda f: f[0])
    out: list[ExtraFinding] = []
    listed: dict[str, int] = {}
    for seq, rule, level, text, at in found:
        listed[rule] = listed.get(rule, 0) + 1
        if listed[rule] <= PER_RULE:
            out.append(ExtraFinding(rule, level, text, at, seq))
    for rule, count in listed.items():
        if count > PER_RULE:
            level = next(f.level for f in out if f.rule == rule)
            out.append(ExtraFinding(rule, level, f"and {count - PER_RULE:,} more of {rule} in this session",
                                    revision))
    return out


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
