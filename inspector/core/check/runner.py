"""Run the checks of :mod:`inspector.core.check.checks` against one server, session by session.

One session per revision checked, each saved as its own capture (``<base>-<label>.jsonl``), each result
naming the seq numbers of its exchange in that capture:

* no ``revision``: the handshake the target asks for (by default ``auto``: server/discover, else initialize)
  and every check at the revision it settles on;
* ``revision`` R: the handshake at R (initialize up to 2025-11-25, server/discover for 2026-07-28) and every
  check there;
* ``all``: the first as without ``revision``, then a session at each other revision the server claims (a
  modern server's ``supportedVersions``; for a legacy server each earlier revision is tried, and one it answers
  with another revision is not applicable), every check in each;
* ``requirements`` R (2025-11-25 or 2026-07-28): the handshake at R and only the checks of R's required set
  (:func:`~inspector.core.check.checks.required_checks`); no other check is probed or reported. A server that
  answers with another revision gets the handshake "not applicable" and the rest of the set "incomplete": the
  set could not be tested at R.

Up to 2025-11-25 an unsupported revision needs a connection of its own (initialize can be sent once): a
session ``unsupported`` asks for 1999-01-01. In 2026-07-28 it is asked on the checked session.

Every wait is bounded (the ``timeout`` per answer; :data:`PROBE_WAITS` of them per probe as a whole); a server
that goes away makes the checks not yet done "incomplete" with the reason, never a hang (and never missing: a
session whose handshake failed lists every other check as incomplete). Exit status: :data:`CHECK_EXITS`: a
run with an incomplete check never exits 0.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from inspector.core.check.checks import (  # noqa: F401 - re-exported
    ALL_REVISIONS,
    BY_ID,
    CHECK_EXITS,
    CHECKS,
    DEFAULT_CHECK_TIMEOUT,
    FAILED,
    INCOMPLETE,
    LEGACY,
    MODERN,
    MUST,
    NOT_APPLICABLE,
    OUTCOMES,
    PASSED,
    ExtraFinding,
    Result,
    required_checks,
)
from inspector.core.check.context import UNSUPPORTED_REVISION, CheckOptions, Context
from inspector.core.check.judging import ServerMessageJudge
from inspector.core.check.kept import KeptEvents
from inspector.core.check.probes import PROBES
from inspector.core.connect.opened import CannotOpen, new_session
from inspector.core.connect.target import Target
from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_INCOMPLETE, EXIT_OK, EXIT_SERVER_FAILED, EXIT_TIMEOUT
from inspector.core.present.describe import clip, describe_http, label, method_and_id
from inspector.core.session.outcomes import HandshakeError, RequestTimeout, ServerInfo, client_info, result_of
from inspector.core.session.session import Session
from inspector.core.text import safe
from inspector.core.transports.base import CannotConnect, CannotRun, CommandNotFound, TransportClosed, TransportError
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Event, Kind

#: A probe makes at most this many waits of ``timeout`` each (a listing, up to MAX_ITEMS reads, a liveness
#: request): its bound as a whole, so a probe that somehow keeps going still ends.
PROBE_WAITS = 25
#: Default wait for each answer: the probes are small requests a working server answers in milliseconds;
#: Characters of one event shown in a failed check's exchange.
EXCHANGE_CHARS = 600
#: Events of one exchange shown in the report.
EXCHANGE_EVENTS = 12


#: What judges a session's events besides the probes (per-message schema and lifecycle rules): made for each
#: session (with the revision asked for, if any), fed each batch of events as they come, asked for its findings
#: at the end (:class:`~inspector.core.check.judging.ServerMessageJudge`).
Judge = Callable[["str | None"], ServerMessageJudge]


@dataclass
class CheckRun:
    """What to check and how."""

    target: Target
    capture_base: Path  #: captures are ``<capture_base>-<label>.jsonl``
    revision: str | None = None  #: None, a revision, or ``all``
    options: CheckOptions = field(default_factory=CheckOptions)
    timeout: float = DEFAULT_CHECK_TIMEOUT
    #: per-message findings on the server's messages (the protocol judge's schema and lifecycle rules)
    judge: Judge | None = ServerMessageJudge
    extra_findings: list[ExtraFinding] = field(default_factory=list)  #: findings passed in, reported as they are
    #: run exactly this revision's required set at it (2025-11-25 or 2026-07-28); replaces ``revision``
    requirements: str | None = None

    def required(self) -> frozenset[str] | None:
        """The ids of the checks to run and report (None: every check)."""
        if self.requirements is None:
            return None
        return frozenset(c.id for c in required_checks(self.requirements, http=self.target.is_http))


@dataclass
class Report:
    target: str
    results: list[Result] = field(default_factory=list)
    captures: list[str] = field(default_factory=list)
    extra_findings: list[ExtraFinding] = field(default_factory=list)
    error: str | None = None  #: the sentence when the run could not start
    exit_code: int = EXIT_OK

    def counts(self) -> dict[str, int]:
        out = {status: 0 for status in OUTCOMES}
        for result in self.results:
            out[result.status] += 1
        return out

    def must_failures(self) -> list[Result]:
        return [r for r in self.results if r.status == FAILED and r.check.level == MUST]

    def incomplete(self) -> list[Result]:
        """The checks that apply but could not be tested."""
        return [r for r in self.results if r.status == INCOMPLETE]

    def summary(self) -> str:
        c = self.counts()
        text = (f"{c[PASSED]} passed, {c[FAILED]} failed ({len(self.must_failures())} MUST), "
                f"{c[NOT_APPLICABLE]} not applicable, {c[INCOMPLETE]} incomplete")
        if self.extra_findings:
            text += f"; {len(self.extra_findings)} per-message findings"
        return text


@dataclass
class _Session:
    """How one session went."""

    info: ServerInfo | None = None
    started: bool = False
    failure: BaseException | None = None


async def run_checks(run: CheckRun) -> Report:
    """Check the server of ``run.target``; never raises for what the server does."""
    report = Report(run.target.describe(), extra_findings=list(run.extra_findings))
    requested = run.requirements or run.revision
    if requested in (None, "all"):
        first = await _check_session(run, report, "auto" if requested else "session", run.target.handshake,
                                     run.target.protocol_version, strict=False)
    else:
        assert requested is not None
        first = await _check_session(run, report, requested, "modern" if requested == MODERN else "legacy",
                                     requested, strict=run.requirements is not None)
    if first.failure is not None and first.info is None:
        report.exit_code = _failure_exit(first)
        report.error = str(first.failure)
        if report.exit_code == EXIT_CANNOT_CONNECT:
            return report
    spoke_legacy = first.info is not None and first.info.era == "legacy"
    if requested == "all" and first.info is not None:
        for revision in ALL_REVISIONS:
            if revision == first.info.protocol_version:
                continue
            why_not = _not_claimed(first.info, revision)
            if why_not:
                report.results.append(Result(BY_ID["handshake"], NOT_APPLICABLE, why_not, revision=revision))
                continue
            outcome = await _check_session(run, report, revision, "modern" if revision == MODERN else "legacy",
                                           revision, strict=True)
            spoke_legacy = spoke_legacy or (outcome.info is not None and outcome.info.era == "legacy")
    if spoke_legacy and run.requirements in (None, *LEGACY):
        await _unsupported_session(run, report)
    required = run.required()
    if required is not None:  # a probe judging several checks may have judged one outside the set
        report.results = [r for r in report.results if r.check.id in required]
    if report.exit_code == EXIT_OK:
        musts = bool(report.must_failures()) or any(f.level == MUST for f in report.extra_findings)
        report.exit_code = EXIT_SERVER_FAILED if musts else EXIT_INCOMPLETE if report.incomplete() else EXIT_OK
    return report


def _failure_exit(outcome: _Session) -> int:
    exc = outcome.failure
    if not outcome.started or isinstance(exc, (CommandNotFound, CannotRun, CannotConnect)):
        return EXIT_CANNOT_CONNECT
    if isinstance(exc, RequestTimeout):
        return EXIT_TIMEOUT
    return EXIT_SERVER_FAILED


def _not_claimed(info: ServerInfo, revision: str) -> str | None:
    """Why the server of ``info`` is not to be checked at ``revision`` (None: it claims it, or may)."""
    if info.era == "modern":
        if revision in info.supported_versions:
            return None
        listed = ", ".join(info.supported_versions)
        return f"the server does not list {revision} among the revisions it supports ({listed})"
    if revision == MODERN:
        return "the server is not a 2026-07-28 server: it did not answer server/discover as one"
    return None


def capture_path(base: Path, label_: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", label_).strip("-.") or "session"
    return base.with_name(f"{base.name}-{slug}.jsonl")


async def _check_session(run: CheckRun, report: Report, label_: str, mode: str, version: str | None, *,
                         strict: bool) -> _Session:
    """One session: the handshake (the ``handshake`` check), then every probe. ``strict``: a server that
    answers with another revision than ``version`` is not checked further (``all``: that revision gets its own
    session if the server claims it)."""
    outcome = _Session()
    target = dataclasses.replace(run.target, handshake=mode, protocol_version=version)
    kept = KeptEvents()
    session, path = _open(run, report, target, label_, kept)
    if session is None:
        outcome.failure = CannotConnect(path)
        return outcome
    judge = run.judge(version) if run.judge is not None else None
    if judge is not None:
        session.listeners.append(judge.feed)
    results: list[Result] = []
    try:
        try:
            await session.start()
            outcome.started = True
            info = await session.handshake(mode, version, run.timeout)
        except TransportError as exc:
            outcome.failure = exc
            if outcome.started:
                session.note(str(exc), failure=True)
                results.append(Result(BY_ID["handshake"], FAILED, _handshake_failure(exc, mode, version),
                                      _message_seqs(kept.events), version))
                results += _untested(target.is_http, version, f"the handshake failed ({exc}), so this could not "
                                                              "be tested", run.required())
            return outcome
        outcome.info = info
        asked = version or ""
        spoke = info.protocol_version or "?"
        if version and spoke != version:
            results.append(Result(BY_ID["handshake"], NOT_APPLICABLE,
                                  f"the server does not speak {version}: asked for it, it answered with {spoke}",
                                  _message_seqs(kept.events), version))
            if strict:
                if run.requirements is not None:
                    results += _untested(target.is_http, version, f"the server does not speak {version} (it answered "
                                         f"with {spoke}), so this could not be tested at {version}", run.required())
                return outcome
        else:
            results.append(Result(BY_ID["handshake"], PASSED,
                                  f"{'server/discover' if info.era == 'modern' else 'initialize'} settled on {spoke}"
                                  + (f" (asked for {asked})" if asked and asked != spoke else ""),
                                  _message_seqs(kept.events), spoke))
        ctx = Context(session, info, timeout=run.timeout, http=target.is_http, url=target.url, options=run.options,
                      kept=kept)
        await _run_probes(ctx, run.required())
        results.extend(ctx.results)
        return outcome
    finally:
        await session.close()
        if session.capture is not None:
            session.capture.close()
        _finish(report, kept, results, str(path))
        if judge is not None:
            report.extra_findings.extend(dataclasses.replace(f, capture=f.capture or str(path))
                                         for f in judge.findings())


def _untested(http: bool, version: str | None, why: str, only: frozenset[str] | None = None) -> list[Result]:
    """Every check but the handshake (of ``only``, when given), for a session that never got past it: not
    applicable where the transport or the revision asked for leaves the rule out, else incomplete, with ``why``."""
    out = []
    for check in CHECKS:
        if check.id == "handshake" or (only is not None and check.id not in only):
            continue
        if check.http_only and not http:
            out.append(Result(check, NOT_APPLICABLE, "stdio has no HTTP", (), version))
        elif version is not None and version not in check.revisions:
            out.append(Result(check, NOT_APPLICABLE, f"the rule is not part of {version}", (), version))
        else:
            out.append(Result(check, INCOMPLETE, why, (), version))
    return out


def _handshake_failure(exc: TransportError, mode: str, version: str | None) -> str:
    what = {"modern": "server/discover", "legacy": "initialize"}.get(mode, "the handshake")
    at = f" at {version}" if version else ""
    if isinstance(exc, HandshakeError):
        return f"{what}{at} failed: {exc}"
    return f"{what}{at} got no answer: {exc}" if isinstance(exc, RequestTimeout) else f"{what}{at}: {exc}"


def _open(run: CheckRun, report: Report, target: Target, label_: str, kept: KeptEvents
          ) -> tuple[Session | None, str | Path]:
    """A session for ``target`` saving to its capture; (None, the sentence) when it cannot be set up."""
    path = capture_path(run.capture_base, label_)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return None, f"cannot write the capture {path}: {exc.strerror or exc}"
    try:
        session, _ = new_session(target, path, keeper=lambda _writer: kept, name=f"check {label_}")
    except CannotOpen as exc:
        return None, str(exc)
    report.captures.append(str(path))
    return session, path


async def _run_probes(ctx: Context, only: frozenset[str] | None = None) -> None:
    """Every probe in turn; with ``only``, just the probes that judge one of those checks, and just those checks
    are decided here (what a probe says of another is dropped from the report)."""
    for all_ids, probe in PROBES:
        ids = tuple(i for i in all_ids if only is None or i in only)
        if not ids:
            continue
        for check_id in ids:  # what does not exist at this revision, or on this transport, is decided first
            check = BY_ID[check_id]
            if ctx.judged(check_id):
                continue
            if check.http_only and not ctx.http:
                ctx.not_applicable(check_id, "stdio has no HTTP")
            elif ctx.revision not in check.revisions:
                ctx.not_applicable(check_id, f"the rule is not part of {ctx.revision}")
        if all(ctx.judged(i) for i in ids):
            continue
        reason = _gone(ctx)
        if reason is None:
            bound = ctx.timeout * PROBE_WAITS
            try:
                await wait_for(probe(ctx), bound)
            except TimeoutError:
                reason = f"the probe did not finish within {bound:g} s"
            except TransportClosed as exc:
                reason = f"the server went away during this probe: {exc}"
            except TransportError as exc:
                reason = f"the probe could not be made: {exc}"
            except Exception as exc:  # a bug of ours: one sentence in the report, the other checks still run
                reason = f"mcp-inspector failed in this probe ({exc.__class__.__name__}: {exc})"
        for check_id in ids:
            if not ctx.judged(check_id):
                ctx.add(check_id, INCOMPLETE, reason or "the probe said nothing about it")


def _gone(ctx: Context) -> str | None:
    if not ctx.session.closed:
        return None
    return f"the server went away earlier: {ctx.session.diagnosis() or 'the connection closed'}"


async def _unsupported_session(run: CheckRun, report: Report) -> None:
    """initialize at 1999-01-01 on a connection of its own (up to 2025-11-25: once per connection)."""
    target = dataclasses.replace(run.target, handshake="none")
    kept = KeptEvents()
    session, path = _open(run, report, target, "unsupported-revision", kept)
    results: list[Result] = []
    if session is None:
        return
    check = BY_ID["handshake-unsupported"]
    try:
        try:
            await session.start()
            params = {"protocolVersion": UNSUPPORTED_REVISION, "capabilities": {}, "clientInfo": client_info()}
            response = await session.request("initialize", params, timeout=run.timeout, cancel_on_timeout=False)
        except TransportError as exc:
            results.append(Result(check, FAILED, f"initialize at {UNSUPPORTED_REVISION}: {exc}",
                                  _message_seqs(kept.events), UNSUPPORTED_REVISION))
            return
        seqs = tuple(e.seq for e in kept.events if e.kind == Kind.MESSAGE)
        result, error = result_of(response)
        if error is not None:
            data = error.get("data") if isinstance(error, dict) else None
            supported = data.get("supported") if isinstance(data, dict) else None
            code = error.get("code") if isinstance(error, dict) else None
            if isinstance(supported, list) and supported:
                results.append(Result(check, PASSED, f"initialize at {UNSUPPORTED_REVISION} got error {code} naming "
                                                     f"the supported revisions: {', '.join(map(str, supported))}",
                                      seqs, UNSUPPORTED_REVISION))
            else:
                results.append(Result(check, FAILED, f"initialize at {UNSUPPORTED_REVISION} got error {code} "
                                                     "without a version the server supports (neither a result with "
                                                     "its protocolVersion nor data.supported)", seqs,
                                      UNSUPPORTED_REVISION))
            return
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if not isinstance(version, str):
            results.append(Result(check, FAILED, f"initialize at {UNSUPPORTED_REVISION} got a result without a "
                                                 "protocolVersion", seqs, UNSUPPORTED_REVISION))
        elif version == UNSUPPORTED_REVISION:
            results.append(Result(check, FAILED, f"the server claims to speak {UNSUPPORTED_REVISION}, a revision "
                                                 "that does not exist", seqs, UNSUPPORTED_REVISION))
        else:
            known = "" if version in LEGACY or version == MODERN else ", a revision mcp-inspector does not know"
            results.append(Result(check, PASSED, f"initialize at {UNSUPPORTED_REVISION} was answered with {version}"
                                                 f"{known}", seqs, UNSUPPORTED_REVISION))
    finally:
        await session.close()
        if session.capture is not None:
            session.capture.close()
        _finish(report, kept, results, str(path))


def _message_seqs(events: list[Event]) -> tuple[int, ...]:
    return tuple(e.seq for e in events if e.kind in (Kind.MESSAGE, Kind.HTTP) and e.data.get("phase") != "end")


def _finish(report: Report, kept: KeptEvents, results: list[Result], capture: str) -> None:
    """The session's results, with their capture and the text of their exchange, join the report (at most
    :data:`EXCHANGE_EVENTS` events of an exchange are shown, and the rest counted: a probe that waited through
    a flood names the flood's events in its seqs, and the capture has them all)."""
    by_seq = {e.seq: e for e in kept.events}
    for result in results:
        result.capture = capture
        shown = [s for s in result.seqs if s in by_seq]
        result.exchange = [exchange_line(by_seq[s]) for s in shown[:EXCHANGE_EVENTS]]
        if len(result.seqs) > EXCHANGE_EVENTS:
            result.exchange.append(f"... and {len(result.seqs) - EXCHANGE_EVENTS:,} more events (in the capture)")
            result.seqs = result.seqs[:EXCHANGE_EVENTS]
        report.results.append(result)


ARROWS = {"c2s": "->", "s2c": "<-"}
#: The request headers an HTTP probe's exchange line shows: the ones the checks turn on.
PROBE_HEADERS = ("origin", "accept", "mcp-session-id")


def exchange_line(event: Event) -> str:
    """One event of an exchange, for a person: seq, direction, kind, method and id, and its text (clipped)."""
    head = f"#{event.seq} {ARROWS.get(event.dir or '', '  ')} {label(event)}"
    if event.kind == Kind.HTTP:
        body = describe_http(event.data)
        if str(event.data.get("purpose", "")).startswith("check:"):  # a probe: what it sent that matters
            sent = {k.lower(): v for k, v in (event.data.get("request_headers") or {}).items()}
            shown = [f"{name}: {sent[name]}" for name in PROBE_HEADERS if name in sent]
            if shown:
                body += f"; sent {'; '.join(shown)}"
            if event.data.get("request_body"):
                body += f"; sent body {event.data['request_body']}"
        return f"{head} {clip(body, EXCHANGE_CHARS)}"
    if event.kind == Kind.MESSAGE:
        what = method_and_id(event)
        return f"{head} {what + ': ' if what else ''}{clip(event.text(), EXCHANGE_CHARS)}"
    if event.kind == Kind.FRAMING_ERROR:
        return f"{head} {safe(str(event.reason))}: {clip(event.text(), EXCHANGE_CHARS)}"
    text = event.data.get("text") if event.kind == Kind.NOTE else json.dumps(event.data, default=str)
    return f"{head} {clip(text, EXCHANGE_CHARS)}"


def check_ids() -> list[str]:
    return [c.id for c in CHECKS]
