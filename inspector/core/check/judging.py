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
PER_RULE = 5


class ServerMessageJudge:
    """The per-message rules over one check session, fed batch by batch as the events come (a session
    listener), so that nothing but the findings is kept: a session that floods a gigabyte is judged in
    passing. :meth:`findings` gives them, each rule at most :data:`PER_RULE` times and then counted."""

    def __init__(self, revision: str | None = None) -> None:
        self.revision = revision
        self._judge = ProtocolJudge(revision)
        self._listed: list[ExtraFinding] = []
        self._counts: dict[str, tuple[int, str]] = {}  # rule -> (findings, level)
        self._failed: str | None = None

    def feed(self, events: list[Event]) -> None:
        if self._failed is not None:
            return
        try:
            self._judge.feed(events)
            if self._judge.deferred:  # judged now: the big events are not to be kept for the end
                self._judge.judge_deferred()
            self._collect(events)
        except Exception as exc:  # another module's bug must not cost the session or the report
            self._failed = f"the per-message checks failed: {exc.__class__.__name__}: {exc}"

    def _collect(self, events: list[Event]) -> None:
        judged = self._judge.findings
        revision = self._judge.revision or self.revision
        for event in events:
            if event.dir != Direction.S2C or _answers_broken_input(event):
                continue
            for f in judged.get(event.seq, ()):
                self._add(f.rule, MUST if f.severity == "error" else SHOULD, f.text, f.revision or revision, f.seq)
            if event.kind == Kind.FRAMING_ERROR:  # the wire's own MUSTs: framing, pairing, batches
                self._add("framing", MUST, f"not an MCP message on the server's output: {event.reason}", revision,
                          event.seq)
            for wire in event.findings:
                if wire.severity == "error":
                    self._add(wire.code, MUST, wire.text, revision, event.seq)
        judged.clear()

    def _add(self, rule: str, level: str, text: str, revision: str | None, seq: int) -> None:
        count, first_level = self._counts.get(rule, (0, level))
        self._counts[rule] = (count + 1, first_level)
        if count < PER_RULE:
            self._listed.append(ExtraFinding(rule, level, text, revision, seq))

    def findings(self) -> list[ExtraFinding]:
        out = sorted(self._listed, key=lambda f: f.seq or 0)
        for rule, (count, level) in self._counts.items():
            if count > PER_RULE:
                out.append(ExtraFinding(rule, level, f"and {count - PER_RULE:,} more of {rule} in this session",
                                        self._judge.revision or self.revision))
        if self._failed is not None:
            out.append(ExtraFinding("judge", SHOULD, self._failed))
        return out


def judge_server_messages(events: list[Event], revision: str | None) -> list[ExtraFinding]:
    """Findings on the server's messages of one check session (``revision``: the one it negotiated)."""
    judge = ServerMessageJudge(revision)
    judge.feed(events)
    return judge.findings()


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
