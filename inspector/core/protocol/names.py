"""What is wrong with a server's tool names, in sentences: one answer for ``check`` (tool-names), the protocol
judge (``lint``, the window's Problems) and the one-shot ``tools``.

The 2025-11-25 tools page (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names):
tool names SHOULD be unique within a server, SHOULD be 1 to 128 characters, and SHOULD use only ASCII letters,
digits, ``_``, ``-`` and ``.``. A name that breaks the last rule with an invisible or direction-changing
character (a right-to-left override makes ``rtl\\u202egnp.exe`` display as ``rtlexe.png``) is said apart: it
shows a person another name than the one a client calls. Names in sentences are cut and escaped, so a name of
a megabyte makes a sentence of a line.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from typing import Any

#: the longest name the spec's guidance allows, and how much of a name a sentence shows
MAX_NAME = 128
SHOWN = 60
_ALLOWED = re.compile(r"[A-Za-z0-9_.\-]+")


def shown_name(name: Any, limit: int = SHOWN) -> str:
    """A name for a sentence: cut to ``limit`` characters (saying how long it is), with every control, format
    (bidi overrides, zero-width) and separator character written as an escape."""
    text = str(name)
    cut = text[:limit]
    escaped = "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c
                      for c in cut)
    return escaped + (f"… ({len(text):,} characters)" if len(text) > limit else "")


def name_problems(names: Iterable[Any], what: str = "tool", *, guidance: bool = True) -> list[str]:
    """One sentence per problem with ``names`` (the tools of one listing), in order; [] when all is well.
    ``guidance``: also the length and characters the 2025-11-25 guidance asks for (before it, only duplicates
    and hidden characters are said)."""
    listed = [n for n in names if isinstance(n, str)]
    problems = [f"{count} {what}s are named {shown_name(name)}: a client can call only one of them by that name"
                for name, count in Counter(listed).items() if count > 1]
    for name in dict.fromkeys(listed):
        hidden = sorted({f"U+{ord(c):04X}" for c in name if unicodedata.category(c) == "Cf"})
        if hidden:
            problems.append(f"the {what} name {shown_name(name)} holds {', '.join(hidden)} (invisible or "
                            "direction-changing): it displays as another name than the one a client calls")
        elif not guidance:
            continue
        elif not 1 <= len(name) <= MAX_NAME:
            problems.append(f"the {what} name {shown_name(name)} is {len(name):,} characters long, not 1 to "
                            f"{MAX_NAME}")
        elif not _ALLOWED.fullmatch(name):
            problems.append(f"the {what} name {shown_name(name)} has characters other than A-Z, a-z, 0-9, _, - "
                            "and .")
    return problems
