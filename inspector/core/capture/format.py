"""Capture format v1: how one event becomes one JSON line and back. The contract is docs/capture-format.md."""

from __future__ import annotations

import base64
import functools
import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Event, Finding, Kind, RpcInfo
from inspector.core.wire.framing import decode_line

FORMAT_NAME = "mcp-inspector-capture"
FORMAT_VERSION = 1

# ASCII escapes off the hot path: data may hold lone surrogates (PEP 383 arguments), which UTF-8 cannot encode.
# allow_nan=False: Python's json would write NaN and Infinity as tokens that are not JSON (RFC 8259 section 6),
# and a line holding one is skipped by every strict reader, ours included
_strict_dumps = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode


def dumps_json(value: Any) -> str:
    """``value`` as compact ASCII JSON that any JSON reader accepts: a float JSON cannot hold (NaN, Infinity,
    whatever the source: a HAR's timings, a server's numbers copied into ``data``) is written as ``null``.
    Everything the capture writer writes goes through here or writes only finite numbers itself."""
    try:
        return _strict_dumps(value)
    except ValueError:
        return _strict_dumps(_finite_only(value))


def _finite_only(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite_only(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_only(item) for item in value]
    return value


def finite_time(seconds: float) -> float:
    """A time as the capture writes it: ``t`` and ``wall`` are always numbers (docs/capture-format.md), so a
    time that is not a finite number (an imported file's Infinity) is written as 0, the unknown time."""
    return seconds if math.isfinite(seconds) else 0.0


_dumps = dumps_json
_encode_str = json.encoder.encode_basestring  # C-accelerated; used on the hot path for "raw"
_encode_ascii = json.encoder.encode_basestring_ascii  # what dumps_json writes a string with (ensure_ascii)


class CaptureError(Exception):
    """A file cannot be read as a capture; the message is one sentence for the user."""


#: the last (t, wall) formatted: events of one batch share them
_times: tuple[float | None, float | None, str] = (None, None, "")


def _times_field(t: float, wall: float) -> str:
    global _times
    if _times[0] is not t or _times[1] is not wall:
        _times = (t, wall, f'"t":{finite_time(t):.6f},"wall":{finite_time(wall):.6f}')
    return _times[2]


def event_to_line(event: Event) -> str:
    """Serialize an event as one capture line (with its trailing newline)."""
    kind = event.kind
    if kind == Kind.MESSAGE and event.eol == b"\n" and not event.findings:
        # the hot path: a well-formed message (raw is valid UTF-8, or it would not be one), nothing to add ...
        data = event.data
        if not data:
            return (f'{{"seq":{event.seq},{_times_field(event.t, event.wall)},"kind":"message","dir":"{event.dir}",'
                    f'"raw":{_encode_str(event.raw.decode("utf-8"))}}}\n')
        # ... or only flat data (a response's pairing: reply_to, latency, request_method), written as _extras and
        # _dumps would write it, without the encoder's per-call set-up (a third of a response's line)
        flat = _flat_json(data) if event.reason is None and event.dir else None
        if flat is not None:
            return (f'{{"seq":{event.seq},{_times_field(event.t, event.wall)},"kind":"message","dir":"{event.dir}",'
                    f'"raw":{_encode_str(event.raw.decode("utf-8"))},"data":{flat}}}\n')
    if kind in _LINE_KINDS or (kind == Kind.APP and event.raw):
        try:
            raw_field = '"raw":' + _encode_str(event.raw.decode("utf-8"))
        except UnicodeDecodeError:
            raw_field = '"raw_b64":"' + base64.b64encode(event.raw).decode("ascii") + '"'
        head = f'{{"seq":{event.seq},{_times_field(event.t, event.wall)},"kind":"{kind}"'
        if event.dir:
            head += f',"dir":"{event.dir}"'
        head += "," + raw_field
        if event.eol != _default_eol(kind):
            head += ',"eol":' + _dumps(event.eol.decode("ascii"))
        if event.reason is not None and not event.findings and not event.data:  # a framing error: its reason
            return head + ',"reason":' + _reason_json(event.reason) + "}\n"  # repeats (a flood of junk lines)
        extra = _extras(event)
        return head + ("," + _dumps(extra)[1:-1] if extra else "") + "}\n"
    obj: dict[str, Any] = {"seq": event.seq, "t": round(finite_time(event.t), 6),
                          "wall": round(finite_time(event.wall), 6), "kind": event.kind}
    if event.dir:
        obj["dir"] = event.dir
    obj.update(_extras(event))
    return _dumps(obj) + "\n"


def _flat_json(data: Mapping[str, Any]) -> str | None:
    """``data`` as :func:`dumps_json` writes it (compact, ASCII) when it is flat: string keys, and values that are
    strings, integers, finite floats, booleans or null, which :func:`_jsonable` leaves as they are; else None."""
    if tuple(data) == _PAIRING:  # a paired response's (the correlator's), the most common by far
        reply_to, latency, method = data.values()
        if type(reply_to) is int and type(latency) is float and type(method) is str and math.isfinite(latency):
            return f'{{"reply_to":{reply_to},"latency":{latency!r},"request_method":{_encode_ascii(method)}}}'
    parts = []
    for key, value in data.items():
        prefix = _KEY_JSON.get(key)
        if prefix is None:
            if type(key) is not str:
                return None
            prefix = _encode_ascii(key) + ":"
            if len(_KEY_JSON) < _KEY_JSON_SIZE:
                _KEY_JSON[key] = prefix
        kind = type(value)
        if kind is int:
            parts.append(prefix + int.__repr__(value))
        elif kind is str:
            parts.append(prefix + _encode_ascii(value))
        elif kind is float:
            if not math.isfinite(value):
                return None  # dumps_json writes it as null, through _finite_only
            parts.append(prefix + float.__repr__(value))
        elif value is None or kind is bool:
            parts.append(prefix + ("null" if value is None else "true" if value else "false"))
        else:
            return None
    return "{" + ",".join(parts) + "}"


#: the data the correlator gives a paired response, in its order
_PAIRING = ("reply_to", "latency", "request_method")
#: data keys as JSON text with their colon (a session's events use a handful of keys, again and again)
_KEY_JSON: dict[str, str] = {}
_KEY_JSON_SIZE = 256


@functools.lru_cache(maxsize=64)
def _reason_json(reason: str) -> str:
    """A framing error's reason as JSON text (what :func:`_extras` would write for it alone)."""
    return _dumps(reason)


#: :func:`event_line_pieces` cuts a raw text longer than this into pieces of about this size.
LINE_PIECE_BYTES = 256 << 10
#: the kinds whose bytes are saved (``raw``); an ``app`` message's are JSON text with no line terminator
_RAW_KINDS = (Kind.MESSAGE, Kind.FRAMING_ERROR, Kind.STDERR, Kind.SSE, Kind.APP)
_LINE_KINDS = (Kind.MESSAGE, Kind.FRAMING_ERROR, Kind.STDERR, Kind.SSE)


def _default_eol(kind: str) -> bytes:
    """The terminator an event of ``kind`` has when its line says none (``eol`` is written only otherwise)."""
    return b"\n" if kind in _LINE_KINDS else b""


def event_line_pieces(event: Event, piece: int = LINE_PIECE_BYTES) -> Iterator[str]:
    """The capture line of :func:`event_to_line`, exactly, in pieces: a big event's raw text is decoded and
    escaped ``piece`` bytes at a time, so writing a 50 MB message costs a piece of memory, not three copies
    of it (and a writer can write it a few pieces per turn of the event loop)."""
    raw = event.raw
    if event.kind not in _RAW_KINDS or len(raw) <= piece:
        yield event_to_line(event)
        return
    text = event.kind != Kind.MESSAGE or event.eol != b"\n" or event.data or event.findings
    binary = text and not _is_utf8(raw, piece)
    if not text:  # event_to_line's hot path
        yield (f'{{"seq":{event.seq},{_times_field(event.t, event.wall)},"kind":"message","dir":"{event.dir}",'
               '"raw":"')
    else:
        head = f'{{"seq":{event.seq},{_times_field(event.t, event.wall)},"kind":"{event.kind}"'
        if event.dir:
            head += f',"dir":"{event.dir}"'
        yield head + (',"raw_b64":"' if binary else ',"raw":"')
    if binary:
        step = piece - piece % 3  # whole base64 quartets
        for start in range(0, len(raw), step):
            yield base64.b64encode(raw[start:start + step]).decode("ascii")
    else:
        for chunk in _utf8_pieces(raw, piece):
            yield _encode_str(chunk)[1:-1]
    if not text:
        yield '"}\n'
        return
    tail = '"'
    if event.eol != _default_eol(event.kind):
        tail += ',"eol":' + _dumps(event.eol.decode("ascii"))
    extra = _extras(event)
    yield tail + ("," + _dumps(extra)[1:-1] if extra else "") + "}\n"


#: bytes that json's encode_basestring escapes: two characters for these ...
_SHORT_ESCAPES = b'"\\\n\r\t\b\f'
#: ... and six (``\u00XX``) for the other control characters
_ALL_ESCAPES = bytes(range(32)) + b'"\\'


def event_line_size(event: Event, piece: int = LINE_PIECE_BYTES) -> int:
    """The length in bytes of :func:`event_to_line` (UTF-8), without building the line: a writer that notes
    where each line starts can account for a 50 MB line before it is written a piece at a time."""
    raw = event.raw
    if event.kind not in _RAW_KINDS or len(raw) <= piece:
        return len(event_to_line(event).encode("utf-8", errors="surrogatepass"))
    text = event.kind != Kind.MESSAGE or event.eol != b"\n" or event.data or event.findings
    # a parsed message (rpc known) is valid UTF-8 JSON: its only raw bytes under 0x20 are JSON's whitespace
    # (\t, \n, \r), all short escapes, so one pass over it counts every escape (two passes, and a UTF-8 check,
    # were ~110 ms of a 50 MB line on the window's event loop)
    parsed = event.kind == Kind.MESSAGE and event.rpc is not None
    binary = bool(text) and not parsed and not _is_utf8(raw, piece)
    stand_in = Event(event.kind, raw=b"\xff" if binary else b"", dir=event.dir, eol=event.eol,
                     reason=event.reason, findings=list(event.findings), data=event.data, seq=event.seq, t=event.t,
                     wall=event.wall)
    around = len(event_to_line(stand_in).encode("utf-8", errors="surrogatepass"))
    if binary:
        return around - len("/w==") + 4 * ((len(raw) + 2) // 3)
    if parsed:
        return around + len(raw) + len(raw) - len(raw.translate(None, _SHORT_ESCAPES))
    escaped = len(raw) - len(raw.translate(None, _ALL_ESCAPES))
    short = len(raw) - len(raw.translate(None, _SHORT_ESCAPES))
    return around + len(raw) + short + 5 * (escaped - short)


def _utf8_pieces(raw: bytes, piece: int) -> Iterator[str]:
    """``raw`` (valid UTF-8) decoded about ``piece`` bytes at a time, never cutting a character."""
    start = 0
    while start < len(raw):
        end = min(len(raw), start + piece)
        while end < len(raw) and raw[end] & 0xC0 == 0x80:  # a continuation byte: the character goes on
            end -= 1
        yield raw[start:end].decode("utf-8")
        start = end


def _is_utf8(raw: bytes, piece: int) -> bool:
    try:
        for _ in _utf8_pieces(raw, piece):
            pass
    except UnicodeDecodeError:
        return False
    return True


def _extras(event: Event) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if event.reason is not None:
        extra["reason"] = event.reason
    if event.findings:
        extra["findings"] = [f.to_json() for f in event.findings]
    if event.data:
        extra["data"] = _jsonable(event.data)
    return extra


def _jsonable(data: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, bytes):
            out[key + "_b64"] = base64.b64encode(value).decode("ascii")
        elif isinstance(value, dict):
            out[key] = _jsonable(value)
        else:
            out[key] = value
    return out


def _unjsonable(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key.endswith("_b64") and isinstance(value, str):
            out[key[:-4]] = base64.b64decode(value)
        elif isinstance(value, dict):
            out[key] = _unjsonable(value)
        else:
            out[key] = value
    return out


def event_from_obj(obj: dict[str, Any]) -> Event:
    """Rebuild an event from a parsed capture line; raises CaptureError with the reason on bad types."""
    try:
        seq = obj["seq"]
        kind = obj["kind"]
        if not isinstance(seq, int) or not isinstance(kind, str):
            raise CaptureError('"seq" must be an integer and "kind" a string')
        t = float(obj.get("t", 0.0))
        wall = float(obj.get("wall", 0.0))
        direction = obj.get("dir")
        if direction is not None and not isinstance(direction, str):
            raise CaptureError('"dir" must be a string')
        reason = obj.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise CaptureError('"reason" must be a string')
        if "raw_b64" in obj:
            raw = base64.b64decode(obj["raw_b64"], validate=True)
        else:
            raw_text = obj.get("raw", "")
            if not isinstance(raw_text, str):
                raise CaptureError('"raw" must be a string')
            raw = raw_text.encode("utf-8", errors="surrogatepass")
        eol = obj.get("eol", _default_eol(kind).decode("ascii"))
        if not isinstance(eol, str):
            raise CaptureError('"eol" must be a string')
        findings = [Finding(f["code"], f["text"], f.get("severity", "error")) for f in obj.get("findings", [])]
        if not all(isinstance(x, str) for f in findings for x in (f.code, f.text, f.severity)):
            raise CaptureError('each finding needs a string "code", "text" and "severity"')
        data = _unjsonable(obj.get("data", {}))
    except CaptureError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise CaptureError(f"an event is malformed ({exc.__class__.__name__}: {exc})") from None
    event = Event(kind, raw=raw, dir=direction, eol=eol.encode("latin-1", errors="replace"), reason=reason,
                  findings=findings, data=data, seq=seq, t=t, wall=wall)
    if kind == Kind.MESSAGE or (kind in (Kind.FRAMING_ERROR, Kind.APP) and raw.lstrip()[:1] in (b"{", b"[")):
        event.rpc = _rpc_of(raw, direction, kind)
    return event


def _rpc_of(raw: bytes, direction: str | None, kind: str) -> RpcInfo | None:
    if kind == Kind.MESSAGE:
        return decode_line(raw, direction or "").rpc
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, (dict, list)):
        return jsonrpc.classify(value)[0]
    return None
