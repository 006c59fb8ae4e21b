"""The inspector's own docs as the seat's resources (``inspector-docs://NAME``, ``text/markdown``), so an agent
reads what a person would: what a failure sentence means and what to do (troubleshooting), what each check and
protocol rule judges (server-checks, protocol-checks), how a capture is laid out (capture-format).

The pages ship in the package (``docs/`` beside this module, package data) as copies of the repository's
``docs/`` pages, byte for byte: ``python scripts/seat_docs.py`` writes them and ``--check`` fails when one
differs (tests/core/seat/test_seat_docs.py runs it)."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

DOCS_SCHEME = "inspector-docs://"
MIME_TYPE = "text/markdown"

#: name (the file docs/NAME.md, the URI's tail): (title, what an agent finds there)
PAGES: dict[str, tuple[str, str]] = {
    "troubleshooting": ("Troubleshooting", "What the inspector says when a server, a URL or a file misbehaves (every "
                                           "sentence of its CLI and window), and what to do about each"),
    "server-checks": ("Server checks", "Every check of check_server: its level (MUST, SHOULD), the revisions it "
                                       "applies to, why, and the spec sentence it tests; what real servers raise"),
    "protocol-checks": ("Protocol checks", "The rules every message is judged by (the findings call_tool and "
                                           "show_capture report), each with its level and spec link"),
    "capture-format": ("Capture format", "The capture file record_session writes and show_capture reads: its "
                                         "header, events, directions and fields"),
}


@functools.cache  # the shipped pages never change while the seat runs; resources/list asks for their sizes
def page_bytes(name: str) -> bytes:
    """The shipped copy of docs/NAME.md; KeyError for a name not in :data:`PAGES`."""
    if name not in PAGES:
        raise KeyError(name)
    return resources.files("inspector.core.seat").joinpath("docs", f"{name}.md").read_bytes()


def doc_resources() -> list[dict[str, Any]]:
    """The pages' entries for ``resources/list``."""
    return [{"uri": DOCS_SCHEME + name, "name": name, "title": title, "description": description,
             "mimeType": MIME_TYPE, "size": len(page_bytes(name))}
            for name, (title, description) in PAGES.items()]


def read_doc(uri: str) -> dict[str, Any] | None:
    """The ``resources/read`` contents of an ``inspector-docs://`` URI; None for a URI that names no page."""
    name = uri.removeprefix(DOCS_SCHEME)
    if not uri.startswith(DOCS_SCHEME) or name not in PAGES:
        return None
    return {"uri": uri, "mimeType": MIME_TYPE, "text": page_bytes(name).decode("utf-8")}
