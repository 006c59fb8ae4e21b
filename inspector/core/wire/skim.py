"""Classify a big JSON-RPC line without building it: its top-level members, and a check of the rest.

Parsing a 40 MB line into Python objects holds the bytes, the text decoded from them (1-4 bytes a character)
and the parse tree (another copy of each big string) at once: three to nine times the message. What the
decoder needs from a message is small: whether it is valid JSON, and its top-level ``jsonrpc``, ``id``,
``method``, ``error`` and whether it has a ``result``. :func:`skim_object` gets exactly that while holding
only the bytes: UTF-8 is checked a window at a time (the decoded text of each window is dropped), the
structure is walked with regular expressions that match in place (a 40 MB string is one match, no copy),
and only the small top-level values that classification reads are parsed, with the same decoder.

Contract (what keeps :mod:`inspector.core.wire.framing` byte-exact and its verdicts unchanged): when
:func:`skim_object` returns members, ``json.loads`` (with NaN and Infinity refused) accepts the line and
returns an object whose keys are exactly those members' keys, with equal values for the keys classification
reads. When it cannot be sure (invalid or unusual JSON: NaN, integers too long for Python, nesting deeper
than :data:`MAX_DEPTH`, a classified value over :data:`VALUE_LIMIT`, a line dense with small tokens: see
:data:`FREE_TOKENS`) it returns None, and the caller parses the line in full, which says exactly
what is wrong. It is conservative in one direction only: a None is never a verdict.
"""

from __future__ import annotations

import codecs
import json
import json.scanner
import re
from typing import Any

#: The top-level members whose values :func:`inspector.core.wire.jsonrpc.classify` reads; of the others only
#: the presence matters (``result``), so their values are checked but not built.
CLASSIFIED = frozenset({"jsonrpc", "id", "method", "error"})
#: A classified value (an ``error`` object, an ``id``) larger than this is not skimmed: the line is parsed.
VALUE_LIMIT = 64 * 1024
#: Containers nested deeper than this are left to the full parse (whose recursion limit decides).
MAX_DEPTH = 200
#: A line of many small tokens (a huge array of numbers) costs a Python step per token here, where the full
#: parse (in C) is faster, and such lines are not made of a few big strings anyway: the skim gives up as soon
#: as it has walked more than FREE_TOKENS plus one per BYTES_PER_TOKEN bytes of the line so far (20,000 steps
#: take ~20 ms; a line of big strings takes a step per string).
FREE_TOKENS = 20_000
BYTES_PER_TOKEN = 128
#: Integers with more digits than this are left to the full parse (Python refuses over 4,300 by default).
MAX_INT_DIGITS = 4000
#: UTF-8 is checked this many bytes at a time; each window's text is dropped at once.
UTF8_WINDOW = 1 << 18

_WS = re.compile(rb"[ \t\n\r]*+")
# a JSON string as Python's strict scanner accepts it: no raw control characters, only JSON's escapes
_STRING = re.compile(rb'"[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*+)*+"')
_NUMBER = re.compile(rb"(-?(?:0|[1-9][0-9]*+))(\.[0-9]++)?([eE][-+]?[0-9]++)?")
_LITERALS = {b"t": b"true", b"f": b"false", b"n": b"null"}

# the C scanner json.loads uses (the values it parses here were checked already: no NaN or Infinity in them)
_scan_once = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # typeshed's context type


class _Unsure(Exception):
    """The skim cannot vouch for the line: the full parse decides."""


def skim_object(line: bytes) -> dict[str, Any] | None:
    """The top-level members of the JSON object ``line`` (no terminator; starts with ``{``): the values of
    :data:`CLASSIFIED` keys parsed, the others None. None when the line must be parsed in full (see the
    module's contract)."""
    if line[:1] != b"{" or not _is_utf8(line):
        return None
    try:
        members, end = _top_object(line)
    except _Unsure:
        return None
    end = _ws(line, end)
    return members if end == len(line) else None


def _is_utf8(line: bytes) -> bool:
    """Whether ``line`` decodes as strict UTF-8 (as ``bytes.decode`` does), a window at a time."""
    view = memoryview(line)
    pos, size = 0, len(line)
    try:
        while pos < size:
            stop = pos + UTF8_WINDOW
            _, used = codecs.utf_8_decode(view[pos:stop], "strict", stop >= size)
            if used == 0:
                return False
            pos += used
    except UnicodeDecodeError:
        return False
    finally:
        view.release()
    return True


def _top_object(line: bytes) -> tuple[dict[str, Any], int]:
    members: dict[str, Any] = {}
    pos = _ws(line, 1)
    if line[pos:pos + 1] == b"}":
        return members, pos + 1
    steps = [0]  # values walked so far
    while True:
        key_end = _string_end(line, pos)
        key = _parse(line, pos, key_end) if key_end - pos <= VALUE_LIMIT else None
        pos = _ws(line, key_end)
        if line[pos:pos + 1] != b":":
            raise _Unsure
        pos = _ws(line, pos + 1)
        end = _skip_value(line, pos, steps)
        if key in CLASSIFIED:
            if end - pos > VALUE_LIMIT:
                raise _Unsure
            members[key] = _parse(line, pos, end)
        elif key is None:
            raise _Unsure  # a key too long to read might be one of ours, escaped
        else:
            members[key] = None
        pos = _ws(line, end)
        sep = line[pos:pos + 1]
        if sep == b"}":
            return members, pos + 1
        if sep != b",":
            raise _Unsure
        pos = _ws(line, pos + 1)


def _parse(line: bytes, start: int, end: int) -> Any:
    """The value at ``line[start:end]`` (already checked), parsed by the full parse's own scanner."""
    text = line[start:end].decode("utf-8")
    try:
        value, stop = _scan_once(text, 0)
    except (StopIteration, ValueError, RecursionError):
        raise _Unsure from None
    if stop != len(text):
        raise _Unsure
    return value


def _ws(line: bytes, pos: int) -> int:
    """Past the JSON whitespace at ``pos``."""
    return _WS.match(line, pos).end()  # type: ignore[union-attr]  # a `*` pattern always matches


def _string_end(line: bytes, pos: int) -> int:
    match = _STRING.match(line, pos)
    if match is None:
        raise _Unsure
    return match.end()


def _skip_value(line: bytes, pos: int, steps: list[int]) -> int:
    """The end of the JSON value at ``pos``, checked as Python's strict scanner would, without building it."""
    closers: list[bytes] = []  # what closes each open container: b"}" or b"]"
    while True:
        # a value starts at pos
        steps[0] += 1
        if steps[0] > FREE_TOKENS + pos // BYTES_PER_TOKEN:
            raise _Unsure
        char = line[pos:pos + 1]
        if char == b'"':
            pos = _string_end(line, pos)
        elif char == b"{" or char == b"[":
            closer = b"}" if char == b"{" else b"]"
            pos = _ws(line, pos + 1)
            if line[pos:pos + 1] == closer:
                pos += 1
            else:
                if len(closers) >= MAX_DEPTH:
                    raise _Unsure
                closers.append(closer)
                if closer == b"}":
                    pos = _member_value(line, pos)
                continue
        elif char in _LITERALS:
            word = _LITERALS[char]
            if line[pos:pos + len(word)] != word:
                raise _Unsure
            pos += len(word)
        else:
            match = _NUMBER.match(line, pos)
            if match is None:  # NaN, Infinity, or not JSON
                raise _Unsure
            if match.group(2) is None and match.group(3) is None and len(match.group(1)) > MAX_INT_DIGITS:
                raise _Unsure
            pos = match.end()
        # after a value: close containers, or go on to the next element
        while True:
            if not closers:
                return pos
            pos = _ws(line, pos)
            sep = line[pos:pos + 1]
            if sep == b",":
                pos = _ws(line, pos + 1)
                if closers[-1] == b"}":
                    pos = _member_value(line, pos)
                break
            if sep != closers[-1]:
                raise _Unsure
            closers.pop()
            pos += 1


def _member_value(line: bytes, pos: int) -> int:
    """Past an object member's key and colon: where its value starts."""
    pos = _ws(line, _string_end(line, pos))
    if line[pos:pos + 1] != b":":
        raise _Unsure
    return _ws(line, pos + 1)
