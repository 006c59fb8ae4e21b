"""A live server seen the way a capture saw its own, for ``diff CAPTURE --against`` (and the window's Compare
with a server): connect, list the four kinds the server declares (every page), send the capture's requests
again (the same methods and params, the client's ``_meta`` left out, fresh ids), and read the session's own
capture back as a :class:`~inspector.core.compare.sessions.ServerRecord`.

A request that gets no answer within the target's timeout is recorded as unanswered and the run goes on; a
kind the server does not declare counts as empty (it has none of them now). Server requests that come on the
way (elicitation, sampling) are answered with the ``answers`` policy, as ``record --answer`` does.

Servers show some tools only to clients that declare what they need (server-everything's elicitation,
sampling and roots tools): the window's comparisons declare the live session's client capabilities.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from inspector.core.compare.sessions import Exchange, ServerRecord, plain_params, read_server
from inspector.core.connect.opened import opened
from inspector.core.connect.target import Target
from inspector.core.explore.listing import LISTS, ListingError, declared, list_all
from inspector.core.session.session import Session
from inspector.core.transports.base import TransportClosed, TransportError


async def probe_server(target: Target, requests: list[Exchange], out: Path | None = None, *,
                       answers: dict[str, str] | None = None, kinds: tuple[str, ...] = tuple(LISTS),
                       capabilities: dict[str, Any] | None = None) -> ServerRecord:
    """The server ``target`` names, its ``kinds`` listed and asked ``requests`` again; its capture saved at ``out``
    (else in a temporary file, removed afterwards). The session declares ``capabilities`` when given (else those
    the ``answers`` can answer). Raises :class:`~inspector.core.connect.opened.CannotOpen`."""
    if out is None:
        with tempfile.TemporaryDirectory(prefix="mcp-inspector-diff-") as folder:
            return await probe_server(target, requests, Path(folder) / "live.jsonl", answers=answers, kinds=kinds,
                                      capabilities=capabilities)
    notes: list[str] = []
    undeclared: list[str] = []
    async with opened(target, out, answers=answers, capabilities=capabilities) as session:
        offered = session.server.capabilities if session.server is not None else {}
        for kind in kinds:
            if not declared(offered, kind):
                undeclared.append(kind)
                continue
            try:
                await list_all(session, kind, timeout=target.timeout)
            except ListingError as exc:
                notes.append(f"{kind}: {exc}")
            except TransportClosed:
                break
            except TransportError as exc:  # a timeout: the kind stays unknown
                notes.append(f"{kind}: {exc}")
        await _ask_again(session, requests, target.timeout)
    record = read_server(out)
    record.source = target.describe()
    for kind in undeclared:
        record.interface.setdefault(kind, {})
    record.notes = notes
    return record


async def _ask_again(session: Session, requests: list[Exchange], timeout: float) -> None:
    for exchange in requests:
        if session.closed:
            return
        try:
            await session.request(exchange.method, plain_params(exchange.params), timeout=timeout)
        except TransportClosed:
            return
        except TransportError:  # no answer in time: recorded as unanswered, the next one is asked
            continue
