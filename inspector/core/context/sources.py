"""Where a listing comes from: a capture's last complete listings (offline), or a live server listed now, both
read as ``diff`` and ``baseline`` read them (:mod:`inspector.core.compare.sessions`)."""

from __future__ import annotations

import os
from pathlib import Path

from inspector.core.compare.sessions import ServerRecord, read_server
from inspector.core.connect.target import Target
from inspector.core.context.cost import Listing

#: the kinds a client lists for the model, as :data:`inspector.core.explore.listing.LISTS` names them
LISTED_KINDS = ("tools", "prompts", "templates")


def listing_of(record: ServerRecord) -> Listing:
    """The tools, prompts and resource templates ``record`` listed (None for a kind never listed completely),
    and its instructions."""

    def items(kind: str) -> list[dict[str, object]] | None:
        found = record.interface.get(kind)
        return None if found is None else list(found.values())

    return Listing(tools=items("tools"), prompts=items("prompts"), templates=items("templates"),
                   instructions=record.instructions)


def from_capture(path: str | os.PathLike[str]) -> ServerRecord:
    """The server as the capture at ``path`` saw it. Raises CompareError with a sentence."""
    return read_server(path)


async def from_server(target: Target, out: Path | None = None) -> ServerRecord:
    """The server ``target`` names, its tools, prompts and templates listed (the session saved at ``out``, else
    in a temporary file). Raises :class:`~inspector.core.connect.opened.CannotOpen`."""
    from inspector.core.compare.against import probe_server

    return await probe_server(target, [], out, kinds=LISTED_KINDS)
