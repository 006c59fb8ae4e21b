"""Resource hints an app may not give: ``<link rel="preconnect">`` and ``rel="dns-prefetch"``.

Chromium opens the connection (or resolves the name) a preconnect hint names before any request is made, so
neither the Content-Security-Policy nor the host's request interceptor ever sees it: an app with
``connect-src 'none'`` could reach any port that way. The host serves the app's HTML with those ``rel`` tokens
taken out of every ``<link>`` tag, and reports each hint it refused. ``rel="preload"``, ``"prefetch"`` and
``"modulepreload"`` are requests, held to the policy like any other, and are left alone.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from html.parser import HTMLParser

#: The ``rel`` tokens refused: each opens a connection (or a DNS lookup) no policy sees.
REFUSED_RELS = ("preconnect", "dns-prefetch")
#: A ``<link`` tag's text as a regular expression sees it, for the sweep after the parser (any tag the parser
#: read differently from Chromium, in a comment that one closes and the other does not, say)
_LINK_TAG = re.compile(r"<link\b[^>]*>?", re.IGNORECASE)
_REFUSED_WORD = re.compile(r"(?<=[\s\"'=])(" + "|".join(REFUSED_RELS) + r")(?=[\s\"'>/]|$)", re.IGNORECASE)


@dataclass
class Hint:
    """A resource hint that was taken out: its ``rel`` token and the ``href`` it named."""

    rel: str
    href: str


class _Links(HTMLParser):
    """Finds each ``<link>`` start tag with a refused ``rel`` token: where it is and what it says."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, int, str, list[tuple[str, str | None]]]] = []  # (line, column, text, attrs)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs)

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "link" or not any(name == "rel" and _refused(value) for name, value in attrs):
            return
        line, column = self.getpos()
        text = self.get_starttag_text() or ""
        self.found.append((line, column, text, attrs))


def hint_reason(rel: str) -> str:
    """Why a resource hint was taken out (the report's reason)."""
    return f"an app may give no rel={rel} hint: it opens a connection no policy sees (taken out)"


def _refused(rel: str | None) -> list[str]:
    return [token for token in (rel or "").lower().split() if token in REFUSED_RELS]


def refuse_hints(document: str) -> tuple[str, list[Hint]]:
    """``document`` without its preconnect and DNS-prefetch hints, and the hints taken out (in order)."""
    parser = _Links()
    try:
        parser.feed(document)
        parser.close()
    except (AssertionError, ValueError):  # html.parser gives up on some broken markup: the sweep still runs
        pass
    starts = [0]
    for text_line in document.split("\n"):  # html.parser counts lines by "\n" only
        starts.append(starts[-1] + len(text_line) + 1)
    hints: list[Hint] = []
    out = document
    for line, column, text, attrs in reversed(parser.found):
        offset = starts[line - 1] + column
        if out[offset:offset + len(text)] != text:
            continue  # not where the parser says: the sweep below takes it
        href = next((value or "" for name, value in attrs if name == "href"), "")
        hints[:0] = [Hint(rel, href) for name, value in attrs if name == "rel" for rel in _refused(value)]
        out = out[:offset] + _rebuilt(attrs) + out[offset + len(text):]
    swept: list[Hint] = []

    def sweep(match: re.Match[str]) -> str:
        tag = match.group(0)
        if not _REFUSED_WORD.search(tag):
            return tag
        swept.extend(Hint(word.lower(), "") for word in _REFUSED_WORD.findall(tag))
        return _REFUSED_WORD.sub(lambda word: "refused-" + word.group(1), tag)

    out = _LINK_TAG.sub(sweep, out)
    return out, hints + swept


def _rebuilt(attrs: list[tuple[str, str | None]]) -> str:
    """A ``<link>`` tag with these attributes, the refused ``rel`` tokens taken out."""
    parts = ["<link"]
    for name, value in attrs:
        if name == "rel":
            value = " ".join(t for t in (value or "").split() if t.lower() not in REFUSED_RELS)
            if not value:
                continue
        parts.append(name if value is None else f'{name}="{html.escape(value, quote=True)}"')
    return " ".join(parts) + ">"
