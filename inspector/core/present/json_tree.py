"""A big JSON message browsed a level at a time, and formatted whole, in the worker process (issue 17).

Parsing a 50 MB message holds the interpreter for 0.1-1 s (more for many small values), and so would
unpickling the parsed value in the window's process. So the parsed value stays where it was parsed: the
window asks for a few rows at a time (:func:`children`: one level, a page of at most a few thousand rows),
and gets small :class:`Row` summaries back. The functions here run wherever
:func:`inspector.core.offload.submit` runs them: in the worker process when the window has one, else in
place (tests, small messages). Each process keeps the last :data:`KEEP_DOCUMENTS` parsed messages by token.

:func:`formatted` pretty-prints the whole message (``json.dumps(indent=2)``'s layout) with long lines folded
(:data:`~inspector.core.present.pretty.FOLD_MARK`) and says, for each folded continuation line, whether it
starts inside a string, so the window can colour any line on its own, without reading the lines before it.

Parsing uses orjson when it is installed and reads the message exactly as ``json.loads`` would: orjson
rejects NaN and lone surrogates (then ``json.loads`` reads them) and turns integers beyond 64 bits into
floats (so a message with a run of 19 or more digits anywhere is read by ``json.loads``).
"""

from __future__ import annotations

import json
import re
import sys
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from inspector.core.present.pretty import FOLD_CHARS, FOLD_MARK, fold_text, pretty_text

#: Parsed messages each process keeps (the one shown, and the one before it).
KEEP_DOCUMENTS = 2
#: A string value's text sent with its row: enough for its cell and its tooltip.
ROW_TEXT_CHARS = 2000
#: Continuation-line states (the values of json_highlighter's block states): inside a string, and inside a
#: string right after a backslash.
IN_STRING, IN_STRING_ESCAPED = 1, 2

_documents: OrderedDict[str, tuple[Any, bytes]] = OrderedDict()  # token: (parsed value, raw bytes)
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 19
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?')
_LINE_BREAKS = re.compile("\r\n|[\n\r\u2029\ufdd0\ufdd1]")  # what a QTextDocument starts a new block at


@dataclass(frozen=True, slots=True)
class Row:
    """One value, as its row in the tree shows it.

    ``key`` is the member's name (str) or the item's position (int), None for the whole message; ``kind`` one
    of ``object``, ``array``, ``string``, ``number``, ``boolean``, ``null``; ``text`` the value's JSON text
    for numbers, booleans and null, at most :data:`ROW_TEXT_CHARS` of a string's characters, empty for
    containers; ``size`` the number of members or items, or of a string's characters."""

    key: str | int | None
    kind: str
    text: str
    size: int


@dataclass(frozen=True, slots=True)
class Formatted:
    """The whole message, indented and folded, and its raw text folded: UTF-8, so that the window decodes
    them a chunk at a time (decoding 50 MB at once is a stall of its own). ``states`` maps a line (counted as a
    QTextDocument counts blocks) to :data:`IN_STRING` or :data:`IN_STRING_ESCAPED` when it continues a string
    folded at the end of the line before; other lines start outside any string."""

    text: bytes
    raw_text: bytes
    states: dict[int, int]
    parsed: bool  # False: not JSON, re-indented as written (see pretty_text), or not meant to be JSON


def _orjson() -> Any:
    """orjson, or None where it is not installed (it is optional: json is exact, only slower)."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson


def parse(raw: bytes) -> Any:
    """The JSON value of ``raw``, exactly as ``json.loads`` reads it; ValueError when it is not JSON."""
    orjson = _orjson()
    if orjson is not None and raw.translate(_DIGITS_AS_ZERO).find(_LONG_DIGITS) < 0:  # a C pass each
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass  # NaN, Infinity, lone surrogates: json reads them; a real error it says again below
    return json.loads(raw)


def open_document(token: str, raw: bytes) -> Row:
    """Parse ``raw`` and keep it as ``token``; the row of the whole message. ValueError when it is not JSON."""
    if token not in _documents:
        _documents[token] = (parse(raw), raw)
        while len(_documents) > KEEP_DOCUMENTS:
            _documents.popitem(last=False)
    _documents.move_to_end(token)
    return row_of(None, _documents[token][0])


def children(token: str, path: tuple[str | int, ...], start: int, count: int) -> list[Row]:
    """Rows ``start`` to ``start + count`` of the members or items of the value at ``path`` (keys and
    positions from the top). KeyError when this process no longer keeps ``token``."""
    value = _at(token, path)
    if isinstance(value, dict):
        keys = list(value)[start:start + count] if start or count < len(value) else list(value)
        return [row_of(key, value[key]) for key in keys]
    if isinstance(value, list):
        return [row_of(start + i, item) for i, item in enumerate(value[start:start + count])]
    return []


def value_text(token: str, path: tuple[str | int, ...]) -> str:
    """The value at ``path`` in full: a string's own text, anything else as indented JSON."""
    value = _at(token, path)
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False)


def forget(token: str) -> None:
    _documents.pop(token, None)


def _at(token: str, path: tuple[str | int, ...]) -> Any:
    value = _documents[token][0]
    for step in path:
        value = value[step]
    return value


def row_of(key: str | int | None, value: Any) -> Row:
    if isinstance(value, dict):
        return Row(key, "object", "", len(value))
    if isinstance(value, list):
        return Row(key, "array", "", len(value))
    if isinstance(value, str):
        return Row(key, "string", value[:ROW_TEXT_CHARS], len(value))
    if isinstance(value, bool):
        return Row(key, "boolean", "true" if value else "false", 0)
    if value is None:
        return Row(key, "null", "null", 0)
    return Row(key, "number", json.dumps(value), 0)


def formatted(token: str, raw: bytes | None, as_json: bool = True, fold: int = FOLD_CHARS) -> Formatted:
    """The whole message indented (``json.dumps(indent=2)``'s layout), long lines folded; text that is not
    JSON is re-indented as written (:func:`~inspector.core.present.pretty.pretty_text`), and text that is not
    meant to be JSON (``as_json`` false: stderr, framing errors) only folded. ``raw`` None: the message this
    process keeps as ``token`` (KeyError when it no longer does)."""
    value: Any = None
    if raw is None:
        value, raw = _documents[token]
    elif token in _documents:
        value = _documents[token][0]
    raw_text = folded_raw(raw, fold).encode("utf-8")
    if not as_json:
        return Formatted(raw_text, raw_text, {}, parsed=False)
    if value is None:
        try:
            value = parse(raw)
        except (ValueError, RecursionError):
            text, states = _fold_states(pretty_text(raw, fold=sys.maxsize), fold)
            return Formatted(text.encode("utf-8"), raw_text, states, parsed=False)
    text, states = _fold_states(_dumps(value), fold)
    return Formatted(text.encode("utf-8"), raw_text, states, parsed=True)


def folded_raw(raw: bytes, fold: int = FOLD_CHARS) -> str:
    """The raw text, long lines folded (the raw tab of a big message)."""
    return fold_text(raw.decode("utf-8", errors="replace"), fold)


def _dumps(value: Any) -> str:
    orjson = _orjson()
    if orjson is not None:
        try:
            return str(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8"))  # folded as text next
        except (TypeError, ValueError):  # an integer beyond 64 bits: json writes it
            pass
    return json.dumps(value, indent=2, ensure_ascii=False)


def _fold_states(text: str, fold: int) -> tuple[str, dict[int, int]]:
    """Fold lines longer than ``fold`` characters and note which continuation lines start in a string.
    Linear in the text: a 50 MB line is cut by position, never copied piece after piece."""
    exotic = any(mark in text for mark in "\r\u2029\ufdd0\ufdd1")
    lines = _LINE_BREAKS.split(text) if exotic else text.split("\n")
    long = [number for number, line in enumerate(lines) if len(line) > fold]
    if not long:
        return ("\n".join(lines) if exotic else text), {}
    out: list[str] = []
    states: dict[int, int] = {}
    block = 0
    previous = 0
    for number in long:
        out.extend(lines[previous:number])
        block += number - previous
        line = lines[number]
        spans = [(m.start(), m.end()) for m in _STRING.finditer(line)]
        span = 0
        for cut in range(0, len(line), fold):
            if cut:
                while span < len(spans) and spans[span][1] <= cut:
                    span += 1
                if span < len(spans) and spans[span][0] < cut:
                    before, first = cut - 1, spans[span][0] + 1
                    while before >= first and line[before] == "\\":
                        before -= 1
                    states[block] = IN_STRING_ESCAPED if (cut - 1 - before) % 2 else IN_STRING
            piece = line[cut:cut + fold]
            out.append(piece + FOLD_MARK if cut + fold < len(line) else piece)
            block += 1
        previous = number + 1
    out.extend(lines[previous:])
    return "\n".join(out), states
