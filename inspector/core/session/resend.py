"""What a restarted session owes its new server (reload on save, issue 45; :meth:`Session.restart
<inspector.core.session.session.Session.restart>`): the requests the old server had not answered, sent again with
their ids once the new server's handshake is done, so whoever waits for one gets the new server's answer.

The resend is a new message on the wire, and the capture says so: a note names the requests before they go, and
each resent request has ``data.resend_of`` = the ``seq`` of the request it sends again (marked by
:meth:`Resends.mark`, an annotator of the session's: before the event is numbered and saved). The new server's
answer pairs with the resend; the first send keeps what the old server said as it was stopped (the Python SDK
answers "Connection closed"), or nothing.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from inspector.core.session.server_requests import Waiter
from inspector.core.transports.base import TransportClosed, TransportError
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.ids import IdKey, id_key

if TYPE_CHECKING:
    from inspector.core.session.session import Session

#: Requests not sent again to a restarted server: the handshake's, which the new handshake replaces, and the
#: lists and the ``subscriptions/listen`` stream, which the Explorer asks for again after it.
NOT_RESENT = frozenset({"initialize", "server/discover", "tools/list", "prompts/list", "resources/list",
                        "resources/templates/list", "subscriptions/listen"})
#: The 2026-07-28 ``_meta`` keys every request carries: on a resend they say what the new handshake settled.
MODERN_META = ("io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities",
               "io.modelcontextprotocol/clientInfo")


class Resends:
    """The requests ``session`` owes a restarted server (by id key, each with the ``seq`` of its first send), and
    those being sent again until their event is marked."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.owed: dict[IdKey, tuple[Waiter, int | None]] = {}
        self._marking: dict[IdKey, int | None] = {}

    def keep(self, waiters: dict[IdKey, Waiter], sent: dict[IdKey, int]) -> None:
        """At a restart: take the requests ``waiters`` waited for (``sent``: their seqs by id key). Those of
        :data:`NOT_RESENT` fail at once; the others wait for :meth:`send`."""
        for key, waiter in waiters.items():
            if waiter.future.done():
                continue
            if waiter.obj is None or waiter.method in NOT_RESENT:
                waiter.future.set_exception(TransportClosed(
                    f"the server restarted: {waiter.method} is not sent again (the new server's handshake and "
                    "lists replace it)"))
            else:
                self.owed[key] = (waiter, sent.get(key))

    def take(self, key: IdKey) -> Waiter | None:
        """The owed request with id ``key``, no longer owed (it was cancelled), or None."""
        owed = self.owed.pop(key, None)
        return owed[0] if owed is not None else None

    def fail(self, exc: BaseException) -> None:
        """The restarted server did not come up: every owed request fails, saying so."""
        owed, self.owed = self.owed, {}
        for waiter, _seq in owed.values():
            if not waiter.future.done():
                waiter.future.set_exception(TransportClosed(f"the server restarted and failed to start: {exc}"))

    async def send(self) -> None:
        """After the new server's handshake: send each owed request again, with its id (its clock starts again
        from this send); one that cannot be sent fails with the sentence."""
        owed = {key: entry for key, entry in self.owed.items() if not entry[0].future.done()}
        self.owed = {}
        if not owed:
            return
        session = self.session
        n = len(owed)
        session.note(f"{n} request{'' if n == 1 else 's'} the old server had not answered "
                     f"{'is' if n == 1 else 'are'} sent again to the new server (reload)",
                     request_ids=[waiter.msg_id for waiter, _seq in owed.values()])
        loop = asyncio.get_running_loop()
        for key, (waiter, seq) in owed.items():
            if waiter.future.done():  # cancelled or timed out while an earlier one was sent
                continue
            session.waiters[key] = waiter
            self._marking[key] = seq
            waiter.resent_at = loop.time()
            waiter.poke()
            try:
                await session.send_object(self.again(waiter.obj or {}))
            except TransportError as exc:
                session.waiters.pop(key, None)
                self._marking.pop(key, None)
                if not waiter.future.done():
                    waiter.future.set_exception(TransportClosed(f"the server restarted, and {exc}"))

    def again(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` as the restarted server is sent it: its 2026-07-28 ``_meta`` keys say what the new handshake
        settled (and go, when the new server speaks an older revision)."""
        params = obj.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(params, dict) and isinstance(meta, dict) and any(key in meta for key in MODERN_META):
            kept = {key: value for key, value in meta.items() if key not in MODERN_META}
            params = {key: value for key, value in params.items() if key != "_meta"} | ({"_meta": kept} if kept else {})
            obj = {key: value for key, value in obj.items() if key != "params"} | \
                ({"params": params} if params else {})
        return self.session.prepare_request(obj)

    def mark(self, events: list[Event]) -> None:
        """The session's annotator: each request sent again gets ``data.resend_of``, before it is saved."""
        if not self._marking:
            return
        for event in events:
            rpc = event.rpc
            if event.kind == Kind.MESSAGE and event.dir == Direction.C2S and rpc is not None \
                    and rpc.kind == jsonrpc.REQUEST and id_key(rpc.id) in self._marking:
                event.put(resend_of=self._marking.pop(id_key(rpc.id)))
