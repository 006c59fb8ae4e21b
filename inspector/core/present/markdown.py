"""Server text as literal Markdown: what a report puts outside code spans and fences.

A Markdown viewer renders ``![x](http://tracker.example/p.png)`` in a server's name as a remote image (a
tracking pixel fetched when the report is opened), ``[click](javascript:...)`` and ``<http://...>`` as links,
a bare ``http://``, ``www.`` or ``user@host`` as links too (GitHub's autolinks), ``<img ...>`` as HTML, and
``|`` ends a table cell. :func:`literal` backslash-escapes what starts any of these (CommonMark lets any ASCII
punctuation be escaped, and shows it as itself), so the text reads the same and renders as plain text.
"""

from __future__ import annotations

import re

from inspector.core.text import safe

#: What starts a link, an image, raw HTML, an entity, emphasis, code or a table cell, and what GitHub's
#: autolinks look for (``://`` after a scheme, ``www.``, the ``@`` of an address).
_SPECIAL = re.compile(r"[\\`*_~\[\]<>|&@]|://|(?i:www)\.")


def literal(text: str) -> str:
    """``text`` for one line of Markdown (a table cell, a list item, a paragraph): control characters shown
    escaped, line breaks and tabs as spaces, and every character that could make a link, an image, HTML or
    markup escaped with a backslash."""
    text = safe(text.replace("\r\n", " ").replace("\n", " ").replace("\t", " "))
    return _SPECIAL.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    found = match.group()
    if found == "://":
        return "\\://"
    if len(found) == 4:  # www.
        return found[:3] + "\\."
    return "\\" + found
