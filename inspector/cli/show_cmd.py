"""``mcp-inspector show``: a capture as a timeline in the terminal (or JSON with ``--json``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from inspector.core.capture import CaptureError, iter_capture
from inspector.core.present.describe import event_record, format_event, target_words
from inspector.core.protocol.judge import ProtocolJudge
from inspector.core.text import safe
from inspector.core.wire.events import Event

#: C1 control characters: JSON allows them raw, but a terminal may act on them (U+009B is a CSI).
_C1 = {code: f"\\u{code:04x}" for code in range(0x80, 0xA0)}


def json_line(record: dict[str, object]) -> str:
    """One JSON line, readable (non-ASCII text kept) but safe to print: C1 controls are escaped as the C0 ones
    already are."""
    return json.dumps(record, ensure_ascii=False).translate(_C1)


def run_show(path: Path, as_json: bool = False) -> int:
    """Print the capture; each event with its findings, the protocol judge's included (judged as it is read;
    a message over the judge's deferral size gets its schema findings at the end, by seq)."""
    warnings: list[str] = []
    judge = ProtocolJudge()
    try:
        items = iter_capture(path, warnings)
        header = next(items)
        assert isinstance(header, dict)
        if not as_json:
            print(describe_header(header))
        for item in items:
            assert isinstance(item, Event)
            extra = [f.as_finding() for f in judge.feed([item])]
            if as_json:
                print(json_line(event_record(item, extra)))
            else:
                print(format_event(item, extra=extra))
        for late in judge.judge_deferred():
            line = safe(f"#{late.seq}: {late.text}")
            print(json_line({"seq": late.seq, "findings": [late.as_finding().to_json()]}) if as_json else line)
    except CaptureError as exc:
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `show x | head`
        sys.stderr.close()
        return 0
    for warning in warnings:
        print(f"mcp-inspector: warning: {safe(warning)}", file=sys.stderr)
    return 0


def describe_header(header: dict[str, object]) -> str:
    target = header.get("target") if isinstance(header.get("target"), dict) else {}
    assert isinstance(target, dict)
    what = target_words(target) or "?"
    if target.get("imported_from"):
        what = f"{what} (imported from {target['imported_from']})".strip()
    rules = header.get("intercept_rules")
    intercepted = f", with {len(rules)} intercept rule{'' if len(rules) == 1 else 's'} in force" \
        if isinstance(rules, list) and rules else ""
    return safe(f"capture of {target.get('transport', '?')} {what}, recorded {header.get('created', '?')}{intercepted}")
