"""A readable report of a session, in Markdown or as one self-contained HTML file.

Contract: the report says what was inspected (target, server, protocol revision, transport), counts by kind,
the whole timeline as a table, each request with its response pretty-printed, and every finding (the wire's
and the protocol judge's schema and lifecycle rules) and framing error with the exact bytes (escaped, with a
hex dump of the first bytes). Server text is untrusted: in Markdown it sits in code spans and fences that it
cannot close (a fence longer than any backtick run inside) and table cells with ``|`` and newlines escaped; in
HTML every piece of it goes through :func:`html.escape`, and the file has no script and loads nothing.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from inspector import __version__
from inspector.core.present.describe import (
    ARROWS,
    compact_seconds,
    hexdump,
    label,
    method_and_id,
    safe,
    summary,
    target_words,
)
from inspector.core.present.pretty import pretty_text
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Finding, Kind

#: bytes of a framing error shown as a hex dump (the rest is counted)
HEX_BYTES = 64
#: messages longer than this are shown cut in the exchanges section (the capture has them whole)
BODY_LIMIT = 20_000


@dataclass
class _Session:
    header: dict[str, Any]
    events: list[Event]
    _judged: dict[int, list[Finding]] | None = None

    @property
    def target(self) -> dict[str, Any]:
        target = self.header.get("target")
        return target if isinstance(target, dict) else {}

    def what(self) -> str:
        target = self.target
        return f"{target.get('transport', '?')}: {target_words(target) or '?'}"

    def server(self) -> tuple[str, str]:
        """(server name and version, protocol revision) from the handshake's answer, when there is one."""
        for event in self.events:
            if event.kind != Kind.MESSAGE or event.dir != Direction.S2C or event.rpc is None:
                continue
            if event.data.get("request_method") not in ("initialize", "server/discover"):
                continue
            try:
                result = event.json().get("result")
            except (ValueError, AttributeError):
                continue
            if not isinstance(result, dict):
                continue
            meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
            assert isinstance(meta, dict)
            info = next((v for v in (result.get("serverInfo"), meta.get("io.modelcontextprotocol/serverInfo"))
                         if isinstance(v, dict)), {})
            revision = result.get("protocolVersion") or next(iter(result.get("supportedVersions") or []), "?")
            return f"{info.get('name', '?')} {info.get('version', '')}".strip(), str(revision)
        return "?", "?"

    def counts(self) -> Counter[str]:
        return Counter(label(event) if event.kind == Kind.MESSAGE else event.kind for event in self.events)

    def exchanges(self) -> list[tuple[Event, Event | None]]:
        """Each request the client or server sent, with the response that answered it (or None)."""
        answers = {int(e.data["reply_to"]): e for e in self.events
                   if e.kind == Kind.MESSAGE and isinstance(e.data.get("reply_to"), int)}
        return [(e, answers.get(e.seq)) for e in self.events
                if e.kind == Kind.MESSAGE and e.rpc is not None and e.rpc.kind == jsonrpc.REQUEST]

    def judged(self) -> dict[int, list[Finding]]:
        """The protocol judge's findings (schema and lifecycle rules) by seq, computed once."""
        if self._judged is None:
            from inspector.core.protocol.judge import ProtocolJudge

            judge = ProtocolJudge()
            judge.feed(self.events)
            judge.judge_deferred()
            self._judged = {seq: [f.as_finding() for f in found] for seq, found in judge.findings.items()}
        return self._judged

    def findings_of(self, event: Event) -> list[Finding]:
        return [*event.findings, *self.judged().get(event.seq, [])]

    def problems(self) -> list[Event]:
        judged = self.judged()
        return [e for e in self.events if e.kind == Kind.FRAMING_ERROR or e.findings or e.seq in judged]


def _body(event: Event) -> str:
    text = pretty_text(event.raw[:BODY_LIMIT]) if event.kind == Kind.MESSAGE else event.text()
    if event.size > BODY_LIMIT:
        text += f"\n… ({event.size:,} bytes in all; the capture has the whole message)"
    return safe(text)


def _problem_lines(event: Event, findings: list[Finding]) -> list[str]:
    out = []
    if event.kind == Kind.FRAMING_ERROR:
        out.append(f"framing error: {safe(str(event.reason))}")
    out += [f"{finding.severity}: {safe(finding.text)} ({finding.code})" for finding in findings]
    return out


def _row(event: Event, previous: float | None) -> list[str]:
    delta = "" if previous is None else "+" + compact_seconds(max(0.0, event.t - previous))
    return [str(event.seq), f"{event.t:.3f}", delta, ARROWS.get(event.dir, " ").strip(), label(event),
            method_and_id(event), summary(event)]


COLUMNS = ["#", "Time", "Δ", "", "Kind", "Method", "Summary"]


def _headline(session: _Session, extra_findings: int = 0) -> list[tuple[str, str]]:
    server, revision = session.server()
    counts = session.counts()
    return [("Target", safe(session.what())), ("Recorded", safe(str(session.header.get("created", "?")))),
            ("Server", safe(server)), ("Protocol revision", safe(revision)),
            ("Events", f"{len(session.events):,} (" + ", ".join(f"{n} {safe(k)}" for k, n in counts.most_common())
             + ")"),
            ("Problems", str(len(session.problems()) + extra_findings))]


# -- Markdown -----------------------------------------------------------------------------------------------

def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("`", "\\`") \
        .replace("<", "&lt;").replace(">", "&gt;")


def _fence(text: str, info: str = "") -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def to_markdown(header: dict[str, Any], events: Iterable[Event]) -> str:
    """The Markdown report of a capture."""
    session = _Session(header, list(events))
    out = ["# mcp-inspector session report", ""]
    out += [f"- **{name}:** {_cell(value)}" for name, value in _headline(session)]
    problems = session.problems()
    out += ["", "## Problems", ""]
    if not problems:
        out.append("No framing errors and no findings.")
    for event in problems:
        out.append(f"### #{event.seq} at {event.t:.3f} s, " +
                   " ".join(_cell(part) for part in (label(event), method_and_id(event)) if part))
        out.append("")
        out += [f"- {_cell(line)}" for line in _problem_lines(event, session.findings_of(event))]
        if event.kind == Kind.FRAMING_ERROR:
            out += ["", _fence(hexdump(event.raw, HEX_BYTES, offset_digits=4), "text")]
        out.append("")
    out += ["", "## Timeline", "", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    previous: float | None = None
    for event in session.events:
        out.append("| " + " | ".join(_cell(cell) for cell in _row(event, previous)) + " |")
        previous = event.t
    out += ["", "## Exchanges", ""]
    for request, response in session.exchanges():
        who = "client" if request.dir == Direction.C2S else "server"
        out += [f"### #{request.seq} {_cell(method_and_id(request))} (sent by the {who})", "",
                _fence(_body(request), "json"), ""]
        if response is None:
            out += ["*No response in the capture.*", ""]
        else:
            latency = response.data.get("latency")
            took = f" after {compact_seconds(latency)}" if isinstance(latency, (int, float)) else ""
            out += [f"Response #{response.seq}{took}:", "", _fence(_body(response), "json"), ""]
    out.append(f"*Written by mcp-inspector {__version__}.*")
    return "\n".join(out) + "\n"


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
    session = _Session(header, list(events))
    problem_seqs = {event.seq for event in session.problems()}
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
           f"<title>mcp-inspector report: {_e(session.what())}</title><style>{_STYLE}</style></head><body>",
           "<h1>mcp-inspector session report</h1><dl>"]
    out += [f"<dt>{_e(name)}</dt><dd>{_e(value)}</dd>" for name, value in _headline(session)]
    out += ["</dl>", "<h2>Problems</h2>"]
    if not problem_seqs:
        out.append("<p>No framing errors and no findings.</p>")
    for event in session.problems():
        out.append(f'<h3 id="p{event.seq}">#{event.seq} at {event.t:.3f} s, {_e(label(event))} '
                   f"{_e(method_and_id(event))}</h3><ul>")
        out += [f"<li>{_e(line)}</li>" for line in _problem_lines(event, session.findings_of(event))]
        out.append("</ul>")
        if event.kind == Kind.FRAMING_ERROR:
            out.append(f"<pre>{_e(hexdump(event.raw, HEX_BYTES, offset_digits=4))}</pre>")
    out += ["<h2>Timeline</h2><table><tr>" + "".join(f"<th>{_e(c)}</th>" for c in COLUMNS) + "</tr>"]
    previous: float | None = None
    for event in session.events:
        cells = _row(event, previous)
        previous = event.t
        row_class = ' class="problem"' if event.seq in problem_seqs else ""
        out.append(f"<tr{row_class}>" + "".join(
            f'<td class="num">{_e(c)}</td>' if i < 3 else f"<td>{_e(c)}</td>" for i, c in enumerate(cells))
            + "</tr>")
    out += ["</table>", "<h2>Exchanges</h2>"]
    for request, response in session.exchanges():
        who = "client" if request.dir == Direction.C2S else "server"
        out.append(f"<h3>#{request.seq} {_e(method_and_id(request))} (sent by the {who})</h3>"
                   f"<pre>{_e(_body(request))}</pre>")
        if response is None:
            out.append("<p><em>No response in the capture.</em></p>")
        else:
            latency = response.data.get("latency")
            took = f" after {compact_seconds(latency)}" if isinstance(latency, (int, float)) else ""
            out.append(f"<p>Response #{response.seq}{_e(took)}:</p><pre>{_e(_body(response))}</pre>")
    out.append(f"<p><em>Written by mcp-inspector {_e(__version__)}.</em></p></body></html>")
    return "\n".join(out) + "\n"


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
