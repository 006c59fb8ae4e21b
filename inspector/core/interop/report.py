"""A readable report of a session, in Markdown or as one self-contained HTML file.

Contract: the report says what was inspected (target, server, protocol revision, transport), counts by kind,
the whole timeline as a table, each request with its response pretty-printed, and every finding (the wire's
and the protocol judge's schema and lifecycle rules) and framing error with the exact bytes (escaped, with a
hex dump of the first bytes). A message an intercept rule or breakpoint acted on carries the mark's sentence
(:func:`inspector.core.wire.intercepted.describe`) in brackets before its summary, and beside it in the
exchanges. Server text is untrusted: in Markdown it sits in code spans and fences that it
cannot close (a fence longer than any backtick run inside), and elsewhere (table cells, list items, headings)
it is literal: whatever would make a link, an image, HTML or a cell break is escaped (``present.markdown``); in
HTML every piece of it goes through :func:`html.escape`, and the file has no script and loads nothing.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from inspector import __version__
from inspector.core.present.describe import (
    ARROWS,
    compact_seconds,
    hexdump,
    intercept_sentence,
    label,
    method_and_id,
    summary,
    target_words,
)
from inspector.core.present.markdown import literal
from inspector.core.present.pretty import pretty_text
from inspector.core.text import safe
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Finding, Kind
from inspector.core.wire.framing import server_broke_framing
from inspector.core.wire.problems import event_is_problem, is_problem_finding

#: bytes of a framing error shown as a hex dump (the rest is counted)
HEX_BYTES = 64
#: messages longer than this are shown cut in the exchanges section (the capture has them whole)
BODY_LIMIT = 20_000


#: events judged at a time while a report streams (the judge's listeners are called once a batch)
BATCH = 512

Events = Callable[[], Iterable[Event]]


class _Judged:
    """The protocol judge's findings (schema and lifecycle rules), for a stream of events a batch at a time:
    nothing is kept but the findings of the batch at hand (a report of a 200 MB capture streams)."""

    def __init__(self) -> None:
        from inspector.core.protocol.judge import ProtocolJudge

        self._judge = ProtocolJudge()

    def batches(self, events: Iterable[Event]) -> Iterator[tuple[list[Event], dict[int, list[Finding]]]]:
        for batch in _batched(events):
            self._judge.feed(batch)
            if self._judge.deferred:
                self._judge.judge_deferred()
            found = {seq: [f.as_finding() for f in findings] for seq, findings in self._judge.findings.items()}
            self._judge.findings.clear()
            yield batch, found


def _batched(events: Iterable[Event]) -> Iterator[list[Event]]:
    batch: list[Event] = []
    for event in events:
        batch.append(event)
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


@dataclass
class _Survey:
    """What the report's head says, from one pass over the events; and which response answered each request
    (seqs only)."""

    header: dict[str, Any]
    server: str = "?"
    revision: str = "?"
    events: int = 0
    problems: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    answers: dict[int, int] = field(default_factory=dict)  #: request seq -> the seq of its response

    @property
    def target(self) -> dict[str, Any]:
        target = self.header.get("target")
        return target if isinstance(target, dict) else {}

    def what(self) -> str:
        target = self.target
        return f"{target.get('transport', '?')}: {target_words(target) or '?'}"


def _survey(header: dict[str, Any], events: Iterable[Event]) -> _Survey:
    survey = _Survey(header)
    found_server = False
    for batch, judged in _Judged().batches(events):
        for event in batch:
            survey.events += 1
            survey.counts[label(event) if event.kind == Kind.MESSAGE else event.kind] += 1
            if _is_problem(event, judged):
                survey.problems += 1
            reply_to = event.data.get("reply_to")
            if event.kind == Kind.MESSAGE and isinstance(reply_to, int):
                survey.answers.setdefault(reply_to, event.seq)
            if not found_server and _handshake_answer(event):
                found = _server_of(event)
                if found is not None:
                    survey.server, survey.revision = found
                    found_server = True
    return survey


def _is_problem(event: Event, judged: dict[int, list[Finding]]) -> bool:
    """One notion of problem, the window's (:mod:`inspector.core.wire.problems`)."""
    return event_is_problem(event, judged.get(event.seq, ()))


def _problem_findings(event: Event, judged: dict[int, list[Finding]]) -> list[Finding]:
    """The problems among the event's own findings and the judge's about it."""
    return [f for f in (*event.findings, *judged.get(event.seq, [])) if is_problem_finding(f.code, f.severity)]


def _handshake_answer(event: Event) -> bool:
    return event.kind == Kind.MESSAGE and event.dir == Direction.S2C and event.rpc is not None \
        and event.data.get("request_method") in ("initialize", "server/discover")


def _server_of(event: Event) -> tuple[str, str] | None:
    """(server name and version, protocol revision) from the handshake's answer."""
    try:
        result = event.json().get("result")
    except (ValueError, AttributeError, RecursionError):
        return None
    if not isinstance(result, dict):
        return None
    meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
    assert isinstance(meta, dict)
    info = next((v for v in (result.get("serverInfo"), meta.get("io.modelcontextprotocol/serverInfo"))
                 if isinstance(v, dict)), {})
    revision = result.get("protocolVersion") or next(iter(result.get("supportedVersions") or []), "?")
    return f"{info.get('name', '?')} {info.get('version', '')}".strip(), str(revision)


def _exchanges(events: Iterable[Event], answers: dict[int, int]) -> Iterator[tuple[Event, Event | None]]:
    """Each request the client or server sent, in order, with the response that answered it (or None): a
    request waits here only until its response passes, and only if it has one."""
    waiting: dict[int, Event] = {}  # response seq -> its request
    ready: dict[int, Event | None] = {}  # request seq -> its response, once known
    order: list[int] = []  # request seqs not yet given out, in order
    requests: dict[int, Event] = {}
    for event in events:
        if event.kind == Kind.MESSAGE and event.rpc is not None and event.rpc.kind == jsonrpc.REQUEST:
            requests[event.seq] = event
            order.append(event.seq)
            answer = answers.get(event.seq)
            if answer is None:
                ready[event.seq] = None
            else:
                waiting[answer] = event
        request = waiting.pop(event.seq, None)
        if request is not None:
            ready[request.seq] = event
        while order and order[0] in ready:
            seq = order.pop(0)
            yield requests.pop(seq), ready.pop(seq)
    for seq in order:  # answers the file did not hold after all (a cut-off capture)
        yield requests.pop(seq), ready.pop(seq, None)


def _body(event: Event) -> str:
    text = pretty_text(event.raw[:BODY_LIMIT]) if event.kind == Kind.MESSAGE else event.text()
    if event.size > BODY_LIMIT:
        text += f"\n… ({event.size:,} bytes in all; the capture has the whole message)"
    return safe(text)


def _problem_lines(event: Event, findings: list[Finding]) -> list[str]:
    out = []
    if server_broke_framing(event):
        out.append(f"framing error: {safe(str(event.reason))}")
    out += [f"{finding.severity}: {safe(finding.text)} ({finding.code})" for finding in findings]
    return out


def _row(event: Event, previous: float | None) -> list[str]:
    delta = "" if previous is None else "+" + compact_seconds(max(0.0, event.t - previous))
    latency = event.data.get("latency")  # a response's, as the timeline shows it
    shown = compact_seconds(latency) if isinstance(latency, (int, float)) and not isinstance(latency, bool) else ""
    intercepted = intercept_sentence(event)
    said = f"[{intercepted}] {summary(event)}" if intercepted is not None else summary(event)
    return [str(event.seq), f"{event.t:.3f}", delta, ARROWS.get(event.dir, " ").strip(), label(event),
            method_and_id(event), shown, said]


def _intercepted(event: Event) -> str:
    """`` (changed by rule 1 (rewrite))`` for a marked message, else nothing."""
    intercepted = intercept_sentence(event)
    return f" ({intercepted})" if intercepted is not None else ""


COLUMNS = ["#", "Time", "Δ", "", "Kind", "Method", "Latency", "Summary"]


def _headline(survey: _Survey) -> list[tuple[str, str]]:
    counts = survey.counts
    return [("Target", safe(survey.what())), ("Recorded", safe(str(survey.header.get("created", "?")))),
            ("Server", safe(survey.server)), ("Protocol revision", safe(survey.revision)),
            ("Events", f"{survey.events:,} (" + ", ".join(f"{n} {safe(k)}" for k, n in counts.most_common())
             + ")"),
            ("Problems", str(survey.problems))]


# -- Markdown -----------------------------------------------------------------------------------------------

def _cell(text: str) -> str:
    """Server text in a table cell, a list item or a heading: literal, no link, image or HTML
    (:func:`inspector.core.present.markdown.literal`)."""
    return literal(text)


def _fence(text: str, info: str = "") -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def to_markdown(header: dict[str, Any], events: Iterable[Event]) -> str:
    """The Markdown report of a capture."""
    kept = list(events)
    return "".join(markdown_chunks(header, lambda: kept))


def markdown_chunks(header: dict[str, Any], events: Events) -> Iterator[str]:
    """The Markdown report, a piece at a time: ``events()`` gives the events afresh for each of the three
    passes (survey; problems and timeline; exchanges), so a capture of any size costs a batch of events."""
    survey = _survey(header, events())
    yield "\n".join(["# mcp-inspector session report", "",
                     *(f"- **{name}:** {_cell(value)}" for name, value in _headline(survey)),
                     "", "## Problems", ""]) + "\n"
    if not survey.problems:
        yield "No framing errors and no findings.\n"
    with _spool() as timeline:
        timeline.write("\n## Timeline\n\n| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n")
        previous: float | None = None
        for batch, judged in _Judged().batches(events()):
            out: list[str] = []
            for event in batch:
                if _is_problem(event, judged):
                    out.append(f"### #{event.seq} at {event.t:.3f} s, " +
                               " ".join(_cell(part) for part in (label(event), method_and_id(event)) if part))
                    out.append("")
                    out += [f"- {_cell(line)}" for line in _problem_lines(event, _problem_findings(event, judged))]
                    if event.kind == Kind.FRAMING_ERROR:
                        out += ["", _fence(hexdump(event.raw, HEX_BYTES, offset_digits=4), "text")]
                    out.append("")
                timeline.write("| " + " | ".join(_cell(cell) for cell in _row(event, previous)) + " |\n")
                previous = event.t
            if out:
                yield "\n".join(out) + "\n"
        yield from _replay(timeline)
    yield "\n## Exchanges\n\n"
    for request, response in _exchanges(events(), survey.answers):
        who = "client" if request.dir == Direction.C2S else "server"
        out = [f"### #{request.seq} {_cell(method_and_id(request))} (sent by the {who})", ""]
        if (sentence := intercept_sentence(request)) is not None:
            out += [f"*{_cell(sentence)}*", ""]
        out += [_fence(_body(request), "json"), ""]
        if response is None:
            out += ["*No response in the capture.*", ""]
        else:
            latency = response.data.get("latency")
            took = f" after {compact_seconds(latency)}" if isinstance(latency, (int, float)) else ""
            out += [f"Response #{response.seq}{took}{_cell(_intercepted(response))}:", "",
                    _fence(_body(response), "json"), ""]
        yield "\n".join(out) + "\n"
    yield f"*Written by mcp-inspector {__version__}.*\n"


def _spool() -> Any:
    """Where a section waits while the one before it is written (in memory up to 8 MiB, then on disk)."""
    import tempfile

    return tempfile.SpooledTemporaryFile(max_size=8 << 20, mode="w+", encoding="utf-8", newline="\n")


def _replay(spool: Any) -> Iterator[str]:
    spool.seek(0)
    while True:
        piece = spool.read(1 << 20)
        if not piece:
            return
        yield piece


# -- HTML ---------------------------------------------------------------------------------------------------

_STYLE = """body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top;font-size:13px}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}tr.problem{background:#fde8e8}
pre{background:#f6f6f6;padding:8px;overflow:auto;max-height:30em}code,pre{font:12px ui-monospace,monospace}
dt{font-weight:bold;float:left;clear:left;width:10em}dd{margin-left:11em}"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def to_html(header: dict[str, Any], events: Iterable[Event]) -> str:
    """The HTML report of a capture: one file, no script, nothing loaded; all server text escaped."""
    kept = list(events)
    return "".join(html_chunks(header, lambda: kept))


def html_chunks(header: dict[str, Any], events: Events) -> Iterator[str]:
    """The HTML report, a piece at a time, in three passes over ``events()`` (as :func:`markdown_chunks`)."""
    survey = _survey(header, events())
    head = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
            f"<title>mcp-inspector report: {_e(survey.what())}</title><style>{_STYLE}</style></head><body>",
            "<h1>mcp-inspector session report</h1><dl>"]
    head += [f"<dt>{_e(name)}</dt><dd>{_e(value)}</dd>" for name, value in _headline(survey)]
    head += ["</dl>", "<h2>Problems</h2>"]
    if not survey.problems:
        head.append("<p>No framing errors and no findings.</p>")
    yield "\n".join(head) + "\n"
    with _spool() as timeline:
        timeline.write("<h2>Timeline</h2><table><tr>" + "".join(f"<th>{_e(c)}</th>" for c in COLUMNS) + "</tr>\n")
        previous: float | None = None
        for batch, judged in _Judged().batches(events()):
            out: list[str] = []
            for event in batch:
                problem = _is_problem(event, judged)
                if problem:
                    out.append(f'<h3 id="p{event.seq}">#{event.seq} at {event.t:.3f} s, {_e(label(event))} '
                               f"{_e(method_and_id(event))}</h3><ul>")
                    out += [f"<li>{_e(line)}</li>" for line in
                            _problem_lines(event, _problem_findings(event, judged))]
                    out.append("</ul>")
                    if event.kind == Kind.FRAMING_ERROR:
                        out.append(f"<pre>{_e(hexdump(event.raw, HEX_BYTES, offset_digits=4))}</pre>")
                cells = _row(event, previous)
                previous = event.t
                row_class = ' class="problem"' if problem else ""
                timeline.write(f"<tr{row_class}>" + "".join(
                    f'<td class="num">{_e(c)}</td>' if i < 3 else f"<td>{_e(c)}</td>" for i, c in enumerate(cells))
                    + "</tr>\n")
            if out:
                yield "\n".join(out) + "\n"
        yield from _replay(timeline)
    yield "</table>\n<h2>Exchanges</h2>\n"
    for request, response in _exchanges(events(), survey.answers):
        who = "client" if request.dir == Direction.C2S else "server"
        out = [f"<h3>#{request.seq} {_e(method_and_id(request))} (sent by the {who})</h3>"]
        if (sentence := intercept_sentence(request)) is not None:
            out.append(f"<p><em>{_e(sentence)}</em></p>")
        out.append(f"<pre>{_e(_body(request))}</pre>")
        if response is None:
            out.append("<p><em>No response in the capture.</em></p>")
        else:
            latency = response.data.get("latency")
            took = f" after {compact_seconds(latency)}" if isinstance(latency, (int, float)) else ""
            out.append(f"<p>Response #{response.seq}{_e(took)}{_e(_intercepted(response))}:</p>"
                       f"<pre>{_e(_body(response))}</pre>")
        yield "\n".join(out) + "\n"
    yield f"<p><em>Written by mcp-inspector {_e(__version__)}.</em></p></body></html>\n"


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
