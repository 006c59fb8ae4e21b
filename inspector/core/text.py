"""Server text made safe for a terminal: the one function every CLI printer passes server text through.

A server (or a capture, which anyone can write) chooses the text the CLI prints: error messages, tool results,
names, descriptions, log lines. Written raw, ``\\x1b]0;title\\x07`` sets the window title, ``\\x1b[2J`` clears
the screen, ``\\x1b[1A`` moves the cursor back over a warning, and a following "all good" looks like ours.
:func:`safe` shows every control character escaped and visible instead (``\\x1b[2J`` prints as the six
characters ``\\x1b[2J``): C0 controls but tab and line feed, DEL, C1 controls (``\\x9b`` is a one-byte CSI in
some terminals), the Unicode line and paragraph separators, and the bidirectional overrides and isolates that
reorder what is shown (Trojan Source). :func:`safe_json` does the same for JSON text, where the escapes are
JSON's own, so the value read back is unchanged.
"""

from __future__ import annotations

import re

#: Tab and line feed are kept where the output has lines (``lines=True``); everything else here is escaped.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_CONTROL_IN_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: What json.dumps(ensure_ascii=False) leaves raw (it escapes C0 itself); only ever inside a string.
_RAW_IN_JSON = re.compile(r"[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: str, *, lines: bool = True) -> str:
    """``text`` with its control characters shown escaped (``\\x1b``, ``\\x9b``, ``\\u202e``), so it cannot drive
    the terminal. Tabs and line breaks are kept when ``lines`` (the output is made of lines), else escaped too
    (one line of a table or a summary)."""
    return (_CONTROL if lines else _CONTROL_IN_LINE).sub(_escaped, text)


def safe_json(text: str) -> str:
    """JSON text as ``json.dumps(..., ensure_ascii=False)`` writes it, with the control characters JSON leaves raw
    written as ``\\u`` escapes: the same JSON value, nothing in it a terminal acts on."""
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def counted(n: int, noun: str) -> str:
    """``1 task``, ``2,000 tasks``: a count and its noun, singular for one (nouns that take an ``s``)."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
