"""Hypothesis strategies for capture files: well-formed ones, hostile ones (every field any JSON type), and
byte-level damage (flips, insertions, deletions, truncation, duplicated or swapped lines)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from inspector.core.capture import CaptureError, read_capture

SAMPLE = (Path(__file__).resolve().parents[1] / "data" / "sample-v1.jsonl").read_bytes()
HEADER = {"format": "mcp-inspector-capture", "version": 1, "created": "2026-01-01T00:00:00.000+00:00",
          "target": {"transport": "stdio", "argv": ["python", "-m", "server"], "cwd": None, "env": {}}}

KINDS = ["message", "framing_error", "stderr", "lifecycle", "note", "http", "sse", "mystery"]
#: The event fields of format v1 and the ``data`` keys the inspector reads.
FIELDS = ["seq", "t", "wall", "kind", "dir", "raw", "raw_b64", "eol", "reason", "findings", "data"]
DATA_KEYS = ["what", "pid", "argv", "cwd", "env", "code", "signal", "after", "pids", "text", "url", "transport",
             "reason", "request_id", "exchange", "method", "request_headers", "response_headers", "status",
             "timing", "snippet", "error", "purpose", "phase", "keepalive_comments", "event", "id", "retry",
             "comments_before", "endpoint", "note", "sse", "oversize", "tail_b64", "total_bytes", "latency",
             "reply_to", "request_method", "answered_by", "replay_of", "body_b64", "mcp"]

WHATS = ["spawned", "exited", "signal", "stdin_closed", "connecting", "disconnected", "stream_lost",
         "request_failed", "closed", "group_leftovers", "mystery"]
#: The data keys each kind's readers look at (the rest are in DATA_KEYS too).
KIND_KEYS = {
    "lifecycle": ["what", "pid", "argv", "cwd", "env", "code", "signal", "after", "pids", "url", "transport",
                  "reason", "request_id"],
    "http": ["exchange", "method", "url", "request_headers", "response_headers", "status", "reason", "timing",
             "snippet", "error", "purpose", "phase", "keepalive_comments"],
    "sse": ["exchange", "event", "id", "retry", "comments_before", "endpoint", "note"],
    "message": ["latency", "reply_to", "request_method", "answered_by", "exchange", "sse", "replay_of"],
    "framing_error": ["oversize", "latency", "request_method", "exchange"],
    "note": ["text"],
}

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-(10**30), 10**30),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
                    st.sampled_from(["", "\n", "\r\n", "c2s", "s2c", "spawned", "exited", "end", "2.0", "\x1b[2J",
                                     "<b>x</b>", "\ud800", "QQ==", "!!", "connect", "content-type"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.one_of(st.sampled_from(DATA_KEYS), st.text(max_size=6)),
                                                 inner, max_size=3)), max_leaves=4)
MESSAGES = [b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}', b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}',
            b'{"jsonrpc":"2.0","method":"notifications/message","params":{}}', b"[1,2]", b"{", b"[" * 3000,
            b"not json", b"\xff\xfe", b"", b'{"id":{"a":[]},"error":5}']


@st.composite
def good_event(draw: st.DrawFn, seq: int) -> dict[str, Any]:
    kind = draw(st.sampled_from(KINDS))
    event: dict[str, Any] = {"seq": seq, "t": seq / 10, "wall": 1.7e9 + seq / 10, "kind": kind}
    if kind in ("message", "framing_error", "stderr", "sse"):
        raw = draw(st.one_of(st.sampled_from(MESSAGES), st.binary(max_size=20)))
        event["dir"] = draw(st.sampled_from(["c2s", "s2c"]))
        try:
            event["raw"] = raw.decode("utf-8")
        except UnicodeDecodeError:
            event["raw_b64"] = base64.b64encode(raw).decode()
    if kind == "framing_error":
        event["reason"] = draw(st.text(max_size=20))
    keys = KIND_KEYS.get(kind, DATA_KEYS)
    if draw(st.booleans()):
        data = {"what": draw(st.sampled_from(WHATS))} if kind == "lifecycle" else {}
        for key in draw(st.lists(st.sampled_from(keys), max_size=4)):
            data[key] = draw(json_values)
        event["data"] = data
    return event


@st.composite
def hostile_event(draw: st.DrawFn, seq: int) -> dict[str, Any]:
    """A plausible event with some fields (and data keys) replaced by any JSON value, or dropped."""
    event = draw(good_event(seq))
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=3)):
        if draw(st.booleans()):
            event[name] = draw(json_values)
        else:
            event.pop(name, None)
    return event


@st.composite
def capture_files(draw: st.DrawFn) -> bytes:
    """Whole capture files: the sample, or a header and events (good and hostile), then some damage."""
    if draw(st.integers(0, 4)) == 0:
        content = SAMPLE
    else:
        header: Any = dict(HEADER)
        if draw(st.integers(0, 5)) == 0:
            header = draw(st.one_of(json_values, st.dictionaries(st.sampled_from(list(HEADER)), json_values)))
        lines = [json.dumps(header)]
        for seq in range(1, draw(st.integers(0, 5)) + 1):
            event = draw(st.one_of(good_event(seq), hostile_event(seq), json_values))
            lines.append(json.dumps(event))
        content = ("\n".join(lines) + "\n").encode("utf-8", errors="surrogatepass")
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 1, 2, 3]))):
        content = damage(draw, content)
    return content


def damage(draw: st.DrawFn, content: bytes) -> bytes:
    """One kind of damage: cut short (as by a crash), bytes inserted, deleted or flipped, a line repeated
    elsewhere, or a whole-file change (a BOM, CRLF line ends, trailing blank lines or NULs)."""
    size = len(content)
    first_line = content.find(b"\n") + 1
    # mostly after the header: a file whose header is damaged is refused at once, which tests little
    at = draw(st.integers(first_line, size) if draw(st.integers(0, 4)) else st.integers(0, size))
    how = draw(st.integers(0, 5))
    if how == 0:
        return content[:at]
    if how == 1:
        return content[:at] + draw(st.binary(min_size=1, max_size=8)) + content[at:]
    if how == 2:
        return content[:at] + content[at + draw(st.integers(1, 16)):]
    if how == 3:
        return content[:at] + bytes([content[at] ^ draw(st.integers(1, 255))]) + content[at + 1:] \
            if at < size else content
    if how == 4:
        lines = content.split(b"\n")
        line = lines[draw(st.integers(0, len(lines) - 1))]
        where = draw(st.integers(0, len(lines)))
        return b"\n".join(lines[:where] + [line] + lines[where:])
    return draw(st.sampled_from([b"\xef\xbb\xbf" + content, content.replace(b"\n", b"\r\n"), content + b"\n" * 3,
                                 content + b"\x00" * 5, content.replace(b'"', b"'", 1)]))


def capture(*events: str) -> bytes:
    """A capture file: the usual header, then these event lines."""
    return (json.dumps(HEADER) + "\n" + "".join(line + "\n" for line in events)).encode()


def read(path: Path, content: bytes) -> object:
    """Write ``content`` to ``path`` and read it: the Capture, or the CaptureError (checked to be one sentence)."""
    path.write_bytes(content)
    try:
        return read_capture(path)
    except CaptureError as exc:
        assert str(exc).strip() and "\n" not in str(exc), f"not one sentence: {exc!r}"
        return exc
