"""A scenario's checks, from its capture and the client's outcome (no I/O: the capture's events are given).

Every scenario: ``messages-valid`` (every message the client sent, judged by the
:class:`~inspector.core.protocol.judge.ProtocolJudge` of the session's revision: one failed check per rule
broken, naming the first message that broke it), ``ids-unique`` and ``ended`` (the client ended by itself within
the timeout). The handshake's checks (``initialize-first``, ``initialized-sent``, ``initialized-before-requests``
or, in a 2026-07-28 session, ``meta-on-every-request``) in ``handshake``, ``legacy-fallback`` and ``modern``;
each scenario's own checks after them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.core.clientbench import checks as spec
from inspector.core.clientbench.checks import FAILED, INCOMPLETE, NOT_APPLICABLE, PASSED, CheckResult
from inspector.core.clientbench.scenarios import (
    AFTER_CHANGE,
    BANNER,
    BEFORE_CHANGE,
    BIG_RESULT_BYTES,
    CURSORS,
    SLOW_SECONDS,
    UNKNOWN_NOTIFICATION,
    UNSUPPORTED_VERSION,
)
from inspector.core.clientbench.script import META_VERSION, parse
from inspector.core.clientbench.server import NOTE_CRASH, NOTE_FLOOD
from inspector.core.protocol.judge import judge_events
from inspector.core.protocol.revisions import STATELESS_FROM
from inspector.core.protocol.rules import BY_ID
from inspector.core.text import counted
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.ids import id_key


@dataclass
class Outcome:
    """How the client's process went: ``exit_code`` (None when the bench stopped it), ``timed_out`` (it ran past
    the timeout), ``seconds`` it ran, the tail of its ``stderr``, and ``error``: the sentence when it could not be
    started at all."""

    exit_code: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    stderr: str = ""
    error: str | None = None


@dataclass
class Message:
    event: Event
    value: Any
    kind: str
    method: str | None
    id: Any


@dataclass
class Session:
    """The capture's messages, each way, in order."""

    events: list[Event]
    client: list[Message] = field(default_factory=list)
    server: list[Message] = field(default_factory=list)
    order: list[Message] = field(default_factory=list)

    def __post_init__(self) -> None:
        for event in self.events:
            if event.kind != Kind.MESSAGE or event.rpc is None:
                continue
            msg = Message(event, parse(event), event.rpc.kind, event.rpc.method, event.rpc.id)
            (self.client if event.dir == Direction.C2S else self.server).append(msg)
            self.order.append(msg)

    def requests(self, method: str | None = None) -> list[Message]:
        return [m for m in self.client if m.kind == jsonrpc.REQUEST and (method is None or m.method == method)]

    def asked(self, method: str) -> list[Message]:
        """The server's requests of ``method``."""
        return [m for m in self.server if m.kind == jsonrpc.REQUEST and m.method == method]

    def answer_to(self, request: Message, *, by_client: bool) -> Message | None:
        side = self.client if by_client else self.server
        key = id_key(request.id)
        for msg in side:
            if msg.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and id_key(msg.id) == key \
                    and msg.event.seq > request.event.seq:
                return msg
        return None

    def noted(self, key: str) -> bool:
        return any(e.kind == Kind.NOTE and e.data.get(key) for e in self.events)


def check(check_id: str, status: str, sentence: str, url: str, at: Message | Event | None = None) -> CheckResult:
    seq = at.event.seq if isinstance(at, Message) else at.seq if isinstance(at, Event) else None
    return CheckResult(check_id, status, sentence, url, seq)


def judge(name: str, events: list[Event], outcome: Outcome, timeout: float,
          revision: str | None = None) -> list[CheckResult]:
    """Every check of the scenario ``name``."""
    session = Session(events)
    if not session.client:
        if outcome.error:
            sentence = f"{outcome.error}; nothing could be checked"
        else:
            ran = f"it ran {timeout:g} s and was stopped" if outcome.timed_out else \
                f"it ended with status {outcome.exit_code}"
            if not events:
                sentence = (f"the scenario server never started ({ran}): the client must launch the command "
                            "appended to its own, where the inspector can be imported")
            else:
                sentence = f"the client sent the scenario server no message ({ran}); nothing could be checked"
        return [check("client-spoke", INCOMPLETE, sentence, spec.STDIO)]
    found = common(session, outcome, timeout, revision)
    if name in ("handshake", "legacy-fallback", "modern"):
        found += handshake(session)
    own = OWN.get(name)
    if own is not None:
        found += own(session, outcome, timeout)
    return found


def common(session: Session, outcome: Outcome, timeout: float, revision: str | None) -> list[CheckResult]:
    found: list[CheckResult] = []
    judged = judge_events(session.events, revision)
    first: dict[str, tuple[Event, str]] = {}
    client_seqs = {m.event.seq: m.event for m in session.client}
    for event in session.events:
        if event.dir == Direction.C2S:
            for wire in event.findings:
                if wire.severity in ("error", "warning"):
                    first.setdefault(wire.code, (event, wire.text))
    for seq in sorted(judged.findings):
        if seq in client_seqs:
            for finding in judged.findings[seq]:
                if finding.severity in ("error", "warning"):
                    first.setdefault(finding.rule, (client_seqs[seq], finding.text))
    for rule, (event, text) in first.items():
        known = BY_ID.get(rule)
        what = event.rpc.method if event.rpc is not None and event.rpc.method else "a message"
        found.append(check(f"messages-valid:{rule}", FAILED, f"{what} (#{event.seq}): {text}",
                           known.link if known else spec.MESSAGES, event))
    if not first:
        found.append(check("messages-valid", PASSED, f"the protocol judge found nothing wrong in the client's "
                           f"{counted(len(session.client), 'message')}", spec.MESSAGES))
    found.append(_ids_unique(session))
    if session.noted(NOTE_FLOOD):
        found.append(check("no-flood", FAILED, "the client flooded the scenario server with messages; it was "
                           "stopped", spec.STDIO))
    if outcome.timed_out:
        found.append(check("ended", FAILED, f"the client did not end within {timeout:g} s; the bench stopped it",
                           spec.SHUTDOWN))
    else:
        found.append(check("ended", PASSED, f"the client ended by itself after {outcome.seconds:.1f} s "
                           f"(status {outcome.exit_code})", spec.SHUTDOWN))
    return found


def _ids_unique(session: Session) -> CheckResult:
    seen: dict[Any, Message] = {}
    for msg in session.requests():
        key = id_key(msg.id)
        if key in seen:
            return check("ids-unique", FAILED, f"{msg.method} (#{msg.event.seq}) reuses the id {msg.id!r} of "
                         f"{seen[key].method} (#{seen[key].event.seq}); a request id must not have been used before "
                         "in the same session", spec.REQUESTS, msg)
        seen[key] = msg
    return check("ids-unique", PASSED, f"every one of the client's {counted(len(seen), 'request')} has an id of its "
                 "own", spec.REQUESTS)


def handshake(session: Session) -> list[CheckResult]:
    requests = session.requests()
    if not requests:
        return [check("initialize-first", INCOMPLETE, "the client sent no request", spec.LIFECYCLE)]
    first = requests[0]
    modern = [m for m in requests if _meta_version(m) is not None]
    if first.method not in ("initialize", "server/discover") and not modern:
        return [check("initialize-first", FAILED, f"the client's first request is {first.method}, not initialize "
                      "(or server/discover)", spec.LIFECYCLE, first)]
    found = [check("initialize-first", PASSED, f"the client opened with {first.method}", spec.LIFECYCLE, first)]
    init_ok = None
    for init in session.requests("initialize"):
        answer = session.answer_to(init, by_client=False)
        if answer is not None and answer.kind == jsonrpc.RESPONSE:
            init_ok = answer
            break
    if init_ok is None:
        if modern:
            missing = [m for m in requests if m.method not in ("initialize", "server/discover")
                       and _meta_version(m) is None]
            if missing:
                found.append(check("meta-on-every-request", FAILED, f"{missing[0].method} (#{missing[0].event.seq})"
                                   f" carries no {META_VERSION} in _meta in a 2026-07-28 session",
                                   spec.MODERN_VERSIONS, missing[0]))
            else:
                found.append(check("meta-on-every-request", PASSED, "every request after the handshake named its "
                                   "revision in _meta", spec.MODERN_VERSIONS))
        return found
    initialized = next((m for m in session.client if m.method == "notifications/initialized"
                        and m.event.seq > init_ok.event.seq), None)
    early = [m for m in requests if m.event.seq > init_ok.event.seq and m.method != "ping"
             and (initialized is None or m.event.seq < initialized.event.seq)]
    if initialized is None:
        found.append(check("initialized-sent", FAILED, "the client never sent notifications/initialized after the "
                           f"server answered initialize (#{init_ok.event.seq})", spec.LIFECYCLE, init_ok))
    else:
        found.append(check("initialized-sent", PASSED, "the client sent notifications/initialized after the "
                           "initialize answer", spec.LIFECYCLE, initialized))
    if early:
        found.append(check("initialized-before-requests", FAILED, f"{early[0].method} (#{early[0].event.seq}) was "
                           "sent before notifications/initialized", spec.LIFECYCLE, early[0]))
    else:
        found.append(check("initialized-before-requests", PASSED, "no request but ping came before "
                           "notifications/initialized", spec.LIFECYCLE))
    return found


def _meta_version(msg: Message) -> str | None:
    params = msg.value.get("params") if isinstance(msg.value, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(META_VERSION) if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


def _after_handshake(session: Session) -> bool:
    return any(m.method not in ("initialize", "server/discover", "ping") for m in session.requests())


def _asked_answered(session: Session, method: str, check_id: str, url: str, capability: str) -> list[CheckResult]:
    asked = session.asked(method)
    if not asked:
        if _after_handshake(session) and capability:
            return [check(check_id, NOT_APPLICABLE, f"the client did not declare the {capability} capability, so "
                          f"the server did not send {method}", url)]
        return [check(check_id, INCOMPLETE, "the client made no request after the handshake, so the server never "
                      f"sent {method}", url)]
    request = asked[0]
    answer = session.answer_to(request, by_client=True)
    if answer is None:
        return [check(check_id, FAILED, f"the client never answered the server's {method} (id {request.id!r})",
                      url, request)]
    if answer.kind == jsonrpc.ERROR:
        err = answer.value.get("error") if isinstance(answer.value, dict) else None
        code = err.get("code") if isinstance(err, dict) else None
        if method == "ping":
            return [check(check_id, FAILED, f"the client answered the server's ping with an error ({code}), not "
                          "an empty result", url, answer)]
        return [check(check_id, PASSED, f"the client refused {method} with error {code}, a proper answer", url,
                      answer)]
    late = answer.event.t - request.event.t
    return [check(check_id, PASSED, f"the client answered {method} after {late:.2f} s", url, answer)]


def _ping(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    return _asked_answered(session, "ping", "ping-answered", spec.PING, "")


def _sampling(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    return _asked_answered(session, "sampling/createMessage", "sampling-answered", spec.SAMPLING, "sampling")


def _elicitation(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    return _asked_answered(session, "elicitation/create", "elicitation-answered", spec.ELICITATION, "elicitation")


def _roots(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    return _asked_answered(session, "roots/list", "roots-answered", spec.ROOTS, "roots")


def _junk(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    banner = next((e for e in session.events if e.dir == Direction.S2C and e.raw == BANNER), None)
    if banner is None:
        return [check("survives-banner", INCOMPLETE, "the client sent no handshake, so the banner was never written",
                      spec.STDIO)]
    after = [m for m in session.client if m.event.seq > banner.seq + 1]
    if after:
        what = after[0].method or "an answer"
        return [check("survives-banner", PASSED, f"the client went on after the banner line ({what} "
                      f"#{after[0].event.seq})", spec.STDIO)]
    return [check("survives-banner", FAILED, "the client sent nothing after the server's banner line and its "
                  "handshake answer: a non-JSON line on stdout stopped it", spec.STDIO, banner)]


def _slow(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    requests = [m for m in session.requests() if m.method not in ("initialize", "server/discover", "ping")]
    if not requests:
        return [check("waits-for-slow-answer", INCOMPLETE, "the client made no request after the handshake",
                      spec.TIMEOUTS)]
    slow = requests[0]
    cancel = next((m for m in session.client if m.method == "notifications/cancelled" and isinstance(m.value, dict)
                   and isinstance(m.value.get("params"), dict)
                   and id_key(m.value["params"].get("requestId")) == id_key(slow.id)), None)
    if cancel is not None:
        return [check("waits-for-slow-answer", FAILED, f"the client cancelled {slow.method} after "
                      f"{cancel.event.t - slow.event.t:.2f} s; the answer was due after {SLOW_SECONDS:g} s",
                      spec.TIMEOUTS, cancel)]
    if session.answer_to(slow, by_client=False) is None:
        return [check("waits-for-slow-answer", FAILED, f"the client ended before the answer to {slow.method}, due "
                      f"after {SLOW_SECONDS:g} s", spec.TIMEOUTS, slow)]
    return [check("waits-for-slow-answer", PASSED, f"the client waited {SLOW_SECONDS:g} s for its answer to "
                  f"{slow.method}", spec.TIMEOUTS, slow)]


def _crash(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    if not session.noted(NOTE_CRASH):
        return [check("ends-after-crash", INCOMPLETE, "the client made no request after the handshake, so the "
                      "server never crashed", spec.SHUTDOWN)]
    if outcome.timed_out:
        return [check("ends-after-crash", FAILED, f"the server exited mid-session and the client still ran "
                      f"{timeout:g} s later (it hangs)", spec.SHUTDOWN)]
    return [check("ends-after-crash", PASSED, f"the client ended (status {outcome.exit_code}) after the server "
                  "exited mid-session", spec.SHUTDOWN)]


def _pagination(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    lists = session.requests("tools/list")
    if not lists:
        return [check("cursor-opaque", NOT_APPLICABLE, "the client never listed tools", spec.PAGINATION)]
    cursors = []
    for msg in lists:
        params = msg.value.get("params") if isinstance(msg.value, dict) else None
        cursors.append((msg, params.get("cursor", "") if isinstance(params, dict) else ""))
    bad = next(((m, c) for m, c in cursors if c not in CURSORS), None)
    found = [check("cursor-opaque", FAILED, f"tools/list (#{bad[0].event.seq}) sent the cursor {bad[1]!r}, which "
                   "the server never gave: cursors are opaque", spec.PAGINATION, bad[0]) if bad else
             check("cursor-opaque", PASSED, "every cursor the client sent is one the server gave", spec.PAGINATION)]
    read = {c for _, c in cursors}
    if read >= set(CURSORS):
        found.append(check("all-pages", PASSED, f"the client read all {len(CURSORS)} pages of tools/list",
                           spec.PAGINATION))
    else:
        found.append(check("all-pages", NOT_APPLICABLE, f"the client read {len(read & set(CURSORS))} of "
                           f"{len(CURSORS)} pages of tools/list (the spec lets a client stop early)",
                           spec.PAGINATION))
    return found


def _list_changed(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    notice = next((m for m in session.server if m.method == "notifications/tools/list_changed"), None)
    if notice is None:
        return [check("relists", NOT_APPLICABLE, "the client never listed tools, so they never changed",
                      spec.LIST_CHANGED)]
    again = [m for m in session.requests("tools/list") if m.event.seq > notice.event.seq]
    if not again:
        return [check("relists", NOT_APPLICABLE, "the client did not list tools again after "
                      "notifications/tools/list_changed (it need not)", spec.LIST_CHANGED)]
    found = [check("relists", PASSED, f"the client listed tools again after the change and got {AFTER_CHANGE}",
                   spec.LIST_CHANGED, again[0])]
    stale = next((m for m in session.requests("tools/call") if m.event.seq > again[0].event.seq
                  and isinstance(m.value, dict) and isinstance(m.value.get("params"), dict)
                  and m.value["params"].get("name") == BEFORE_CHANGE), None)
    if stale is not None:
        found.append(check("uses-new-list", FAILED, f"the client called {BEFORE_CHANGE} after the new list left it "
                           "out", spec.LIST_CHANGED, stale))
    return found


def _legacy(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    probes = session.requests("server/discover")
    if not probes:
        return [check("falls-back", PASSED, "the client used initialize without probing server/discover",
                      spec.VERSIONS)]
    init = [m for m in session.requests("initialize") if m.event.seq > probes[0].event.seq]
    if init:
        return [check("falls-back", PASSED, "server/discover was refused and the client fell back to initialize",
                      spec.DISCOVER, init[0])]
    return [check("falls-back", FAILED, "server/discover was refused and the client never sent initialize",
                  spec.DISCOVER, probes[0])]


def _modern(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    refused = [m for m in session.server if m.kind == jsonrpc.ERROR and isinstance(m.value, dict)
               and isinstance(m.value.get("error"), dict) and m.value["error"].get("code") == UNSUPPORTED_VERSION]
    spoke = [m for m in session.requests() if _meta_version(m) == STATELESS_FROM]
    found = []
    if spoke:
        found.append(check("adopts-modern", PASSED, f"the client spoke 2026-07-28 ({spoke[0].method} "
                           f"#{spoke[0].event.seq} names it in _meta)", spec.MODERN_VERSIONS, spoke[0]))
    else:
        found.append(check("adopts-modern", FAILED, "the client never sent a request naming 2026-07-28 in _meta, "
                           "though the server supports only that revision", spec.MODERN_VERSIONS,
                           refused[0] if refused else None))
    inits = session.requests("initialize")
    if len(inits) > 2:
        found.append(check("no-retry-loop", FAILED, f"the client sent initialize {len(inits)} times though it was "
                           "refused with -32022", spec.MODERN_VERSIONS, inits[2]))
    return found


def _survives(session: Session, outcome: Outcome, fault: Message | None, check_id: str, what: str,
              url: str) -> list[CheckResult]:
    """A client survives a fault when it sends anything after it, or ends by itself with status 0."""
    if fault is None:
        return [check(check_id, INCOMPLETE, f"the client made no request that {what} could follow", url)]
    after = next((m for m in session.client if m.event.seq > fault.event.seq), None)
    if after is not None:
        return [check(check_id, PASSED, f"the client went on after {what} ({after.method or 'an answer'} "
                      f"#{after.event.seq})", url, after)]
    if not outcome.timed_out and outcome.exit_code == 0:
        return [check(check_id, PASSED, f"the client ended normally (status 0) after {what}", url)]
    how = "hung" if outcome.timed_out else f"ended with status {outcome.exit_code}"
    return [check(check_id, FAILED, f"the client sent nothing more after {what} and {how}", url, fault)]


def _unknown(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    fault = next((m for m in session.server if m.method == UNKNOWN_NOTIFICATION), None)
    return _survives(session, outcome, fault, "survives-unknown-notification",
                     "a notification of an unknown method", spec.NOTIFICATIONS)


def _duplicate(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    seen: set[Any] = set()
    fault = None
    for msg in session.server:
        if msg.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR):
            key = id_key(msg.id)
            if key in seen:
                fault = msg
                break
            seen.add(key)
    return _survives(session, outcome, fault, "survives-duplicate-response", "a second answer to the same request",
                     spec.RESPONSES)


def _big(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    fault = next((m for m in session.server if m.event.size >= BIG_RESULT_BYTES), None)
    if fault is None and not session.requests("tools/call") and _after_handshake(session):
        return [check("survives-big-result", NOT_APPLICABLE, "the client called no tool, so no big result came",
                      spec.TOOL_RESULTS)]
    return _survives(session, outcome, fault, "survives-big-result",
                     f"a {BIG_RESULT_BYTES >> 20} MiB tools/call result", spec.TOOL_RESULTS)


def _no_answer(session: Session, outcome: Outcome, timeout: float) -> list[CheckResult]:
    requests = [m for m in session.requests() if m.method not in ("initialize", "server/discover", "ping")]
    if not requests:
        return [check("cancels-on-timeout", INCOMPLETE, "the client made no request after the handshake",
                      spec.TIMEOUTS)]
    silent = requests[0]
    cancel = next((m for m in session.client if m.method == "notifications/cancelled" and isinstance(m.value, dict)
                   and isinstance(m.value.get("params"), dict)
                   and id_key(m.value["params"].get("requestId")) == id_key(silent.id)), None)
    if cancel is not None:
        return [check("cancels-on-timeout", PASSED, f"the client cancelled {silent.method} after "
                      f"{cancel.event.t - silent.event.t:.1f} s without an answer", spec.TIMEOUTS, cancel)]
    if outcome.timed_out:
        return [check("cancels-on-timeout", FAILED, f"the client waited for its answer to {silent.method} for the "
                      f"whole {timeout:g} s and never cancelled it", spec.TIMEOUTS, silent)]
    return [check("cancels-on-timeout", FAILED, f"the client ended without an answer to {silent.method} and without "
                  "cancelling it (the spec says it SHOULD send notifications/cancelled)", spec.TIMEOUTS, silent)]


OWN: dict[str, Callable[[Session, Outcome, float], list[CheckResult]]] = {
    "ping": _ping, "sampling": _sampling, "elicitation": _elicitation, "roots": _roots, "junk-stdout": _junk,
    "slow": _slow, "crash": _crash, "pagination": _pagination, "list-changed": _list_changed,
    "legacy-fallback": _legacy, "modern": _modern, "unknown-notification": _unknown, "duplicate-response": _duplicate,
    "big-result": _big, "no-answer": _no_answer,
}
