"""The MCP protocol revisions the inspector knows, and their official schema documents (package data).

``schemas/<revision>/schema.json`` are the MCP project's files byte for byte (``schemas/SOURCE`` names the
commit, ``schemas/LICENSE`` the license). Each document is read once, on first use, and kept: a session
judges all its messages against one revision. Where a file contradicts itself, :mod:`.errata` says how it is
read (applied in memory; the files stay as published).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

#: Every revision with a schema file, oldest first.
REVISIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
LATEST = REVISIONS[-1]
#: The revision whose era has no initialize handshake (every request carries its revision in ``_meta``).
STATELESS_FROM = "2026-07-28"
#: The revisions of the initialize handshake (before :data:`STATELESS_FROM`), newest first.
HANDSHAKE_REVISIONS: tuple[str, ...] = tuple(r for r in reversed(REVISIONS) if r < STATELESS_FROM)
#: The revisions with Streamable HTTP (2024-11-05 had HTTP+SSE only), oldest first.
STREAMABLE_REVISIONS: tuple[str, ...] = tuple(r for r in REVISIONS if r >= "2025-03-26")
#: The only revision whose JSON-RPC layer allows batches.
BATCH_REVISIONS = frozenset({"2025-03-26"})


def spec_url(revision: str, page: str = "") -> str:
    """The address of the spec text of ``revision`` (``page`` e.g. ``basic/lifecycle``)."""
    return f"https://modelcontextprotocol.io/specification/{revision}" + (f"/{page}" if page else "")


def schema_bytes(revision: str) -> bytes:
    """The shipped schema.json of ``revision``, exactly as the MCP project publishes it."""
    return resources.files("inspector.core.protocol").joinpath(f"schemas/{revision}/schema.json").read_bytes()


@cache
def schema_document(revision: str) -> dict[str, Any]:
    """The parsed schema document of ``revision``, its :mod:`.errata` applied (KeyError for a revision we do not
    know)."""
    from inspector.core.protocol import errata

    if revision not in REVISIONS:
        raise KeyError(revision)
    document: dict[str, Any] = json.loads(schema_bytes(revision))
    return errata.apply(revision, document)


def definitions(revision: str) -> dict[str, Any]:
    document = schema_document(revision)
    found: dict[str, Any] = document.get("$defs") or document["definitions"]
    return found


@cache
def methods(revision: str) -> dict[str, str]:
    """Method name -> the definition of the request or notification that carries it (``tools/list`` ->
    ``ListToolsRequest``). Unions (``ClientNotification`` in 2026-07-28 is one notification, not a union)
    are left out: the definition whose name ends in Request or Notification wins."""
    out: dict[str, str] = {}
    for name, schema in definitions(revision).items():
        method = schema.get("properties", {}).get("method", {}) if isinstance(schema, dict) else {}
        const = method.get("const") if isinstance(method, dict) else None
        if isinstance(const, str) and (const not in out or name.endswith(("Request", "Notification"))):
            if const in out and out[const].endswith(("Request", "Notification")):
                continue
            out[const] = name
    return out


def result_definition(revision: str, method: str) -> str | None:
    """The definition a result of ``method`` must match (``tools/list`` -> ``ListToolsResult``): the
    request's name with Result for Request, else ``EmptyResult`` (ping, logging/setLevel, subscribe)."""
    request = methods(revision).get(method)
    if request is None or not request.endswith("Request"):
        return None
    defs = definitions(revision)
    name = request.removesuffix("Request") + "Result"
    if name in defs:
        return name
    return "EmptyResult" if "EmptyResult" in defs else None
