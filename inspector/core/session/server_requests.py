"""The server's own requests to a session, and their answers (the client side of
https://modelcontextprotocol.io/specification/2025-11-25/client): ``ping`` with ``{}``, ``roots/list`` with the
session's roots, anything else by the session's :class:`ServerRequestHandler` (the window asks the user; headless,
the ``--answer`` policies; a replay, what the capture answered) or, with none, an error saying it is not handled.

Waiting on the user is not a timeout: while a handler that asks a person (``waits_for_user``) has a server
request open, the timers of the client requests it may belong to are stopped, and start again in full when it
is answered. Which requests it belongs to: over HTTP, the request whose POST stream carried it (the spec's
related request); otherwise (stdio, a standalone stream) every request pending when it arrived, since stdio
cannot say. A note records each pause (``paused``: the ids, ``waiting_on``/``waiting_method``: the server's).
A server that cancels its own request gets no answer to it, and the user is no longer asked.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.core.session.outcomes import INTERNAL_ERROR, METHOD_NOT_FOUND, RpcError
from inspector.core.transports.base import TransportError
from inspector.core.wire.events import Event
from inspector.core.wire.ids import IdKey, id_key

if TYPE_CHECKING:
    from inspector.core.session.session import Session


class ServerRequestHandler:
    """What answers the server's requests that the session does not answer itself (sampling, elicitation...).

    Subclasses override :meth:`__call__` (the result, or :class:`RpcError` for a JSON-RPC error),
    :meth:`capabilities` (what the client may then declare), :attr:`waits_for_user`, and :meth:`attached` to
    learn the session they answer for (its revision, once negotiated, judges the answers)."""

    #: it asks a person: the clocks of the requests a server request belongs to stop while it waits
    waits_for_user = False

    def capabilities(self) -> dict[str, Any]:
        """Client capabilities this handler answers for (``elicitation``, ``sampling``...)."""
        return {}

    def attached(self, session: Session) -> None:
        """``session`` will ask this handler (called once, when the session is made)."""

    async def __call__(self, method: str, params: Any) -> Any:
        raise RpcError(METHOD_NOT_FOUND, f"mcp-inspector does not answer {method} here; the request was recorded")


class ServerRequests:
    """The server requests of one session being answered, and those the user is asked about."""

    def __init__(self, session: Session, handler: ServerRequestHandler | None) -> None:
        self.session = session
        self.handler = handler
        if handler is not None:
            handler.attached(session)
        #: server requests (by id) being answered
        self.answering: set[IdKey] = set()
        #: those of them the server cancelled before we asked
        self._withdrawn: set[IdKey] = set()
        #: server requests open with a handler that asks the user (by id), and the requests they hold
        self._asking: dict[IdKey, Asking] = {}

    def capabilities(self) -> dict[str, Any]:
        return self.handler.capabilities() if self.handler is not None else {}

    def cancelled(self, event: Event) -> None:
        """The server cancelled a request of its own that we are answering: stop asking the user (the panel
        drops it) and answer nothing, as the spec wants; the requests it held wait on their clocks again."""
        try:
            key = id_key(event.json()["params"]["requestId"])
        except (ValueError, KeyError, TypeError):
            return
        asking = self._asking.get(key)
        if asking is not None:
            asking.task.cancel()
        elif key in self.answering:  # not asked yet: it will not be
            self._withdrawn.add(key)


    def receive(self, event: Event) -> Coroutine[Any, Any, None]:
        """A server request arrived: it is being answered from now on (a cancel in the same read finds it); the
        session spawns the answer this returns."""
        assert event.rpc is not None
        self.answering.add(id_key(event.rpc.id))
        return self._answer(event)

    async def _answer(self, event: Event) -> None:
        assert event.rpc is not None
        key = id_key(event.rpc.id)
        try:
            if key not in self._withdrawn:
                await self._answer_one(event)
        finally:
            self.answering.discard(key)
            self._withdrawn.discard(key)

    async def _answer_one(self, event: Event) -> None:
        assert event.rpc is not None
        method = event.rpc.method or ""
        try:
            params = event.json().get("params")
        except (ValueError, AttributeError):
            params = None
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": event.rpc.id}
        asking = self._pause_for(event, method)
        try:
            reply["result"] = await self.handle(method, params)
        except RpcError as exc:
            reply["error"] = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                reply["error"]["data"] = exc.data
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a handler bug must still answer the server, and say what happened
            reply["error"] = {"code": INTERNAL_ERROR, "message": f"mcp-inspector could not answer {method}: "
                                                                 f"{exc.__class__.__name__}: {exc}"}
        finally:
            if asking is not None:
                self._resume(asking)
        try:
            await self.session.send_object(reply)
        except TransportError:
            pass  # the server is gone; its exit is already an event

    def _pause_for(self, event: Event, method: str) -> Asking | None:
        """A server request the user is asked about stops the clocks of the requests it may belong to (see the
        module's docstring for which), with a note; returns what :meth:`_resume` needs, None when nothing waits."""
        assert event.rpc is not None
        if method in ("ping", "roots/list") or not event.rpc.has_id or self.handler is None \
                or not self.handler.waits_for_user:
            return None
        held = self._related_waiters(event)
        task = asyncio.current_task()
        if not held or task is None:
            return None
        key = id_key(event.rpc.id)
        what = f"{method} #{json.dumps(event.rpc.id)}"
        for waiter in held:
            waiter.holds[key] = what
            waiter.poke()
        asking = Asking(key, task, held)
        self._asking[key] = asking
        names = " and ".join(f"{w.method} #{json.dumps(w.msg_id)}" for w in held)
        verb, its = ("waits", "its timeout is") if len(held) == 1 else ("wait", "their timeouts are")
        self.session.note(f"{names} {verb} for your answer to {what}: {its} paused until you answer",
                  paused=[w.msg_id for w in held], waiting_on=event.rpc.id, waiting_method=method)
        return asking

    def _related_waiters(self, event: Event) -> list[Waiter]:
        """The requests being waited for that a server request may belong to: over HTTP the one whose POST
        stream carried it (the same exchange); when nothing says (stdio, a standalone stream), every one."""
        exchange = event.data.get("exchange")
        if exchange is not None:
            related = [self.session.waiters[k] for r in self.session.pending_requests()
                       if r.data.get("exchange") == exchange and r.rpc is not None
                       and (k := id_key(r.rpc.id)) in self.session.waiters]
            if related:
                return related
        return list(self.session.waiters.values())

    def _resume(self, asking: Asking) -> None:
        """The user answered (or the question went away): the held requests' clocks start again."""
        self._asking.pop(asking.key, None)
        for waiter in asking.held:
            waiter.holds.pop(asking.key, None)
            waiter.poke()

    async def handle(self, method: str, params: Any) -> Any:
        """The result of a server request (ping and roots/list here, the rest the handler's), or RpcError."""
        if method == "ping":
            return {}
        if method == "roots/list":
            return {"roots": self.session.roots}
        if self.handler is not None:
            return await self.handler(method, params)
        raise RpcError(METHOD_NOT_FOUND, f"mcp-inspector does not answer {method} here (running headless); "
                                         "the request was recorded")


class Waiter:
    """One request being waited for: its future, and the server requests it waits behind (the user's turn)."""

    __slots__ = ("msg_id", "method", "future", "holds", "wake", "obj", "resent_at")

    def __init__(self, msg_id: Any, method: str, future: asyncio.Future[Event],
                 obj: dict[str, Any] | None = None) -> None:
        self.msg_id = msg_id
        self.method = method
        self.future = future
        #: the request as sent: what a restarted server is sent again (:meth:`Session.restart`)
        self.obj = obj
        #: the loop time it was sent again to a restarted server (its clock starts again then); 0.0 if never
        self.resent_at = 0.0
        #: server requests (by id key) that wait for the user's answer and may belong to this request
        self.holds: dict[tuple[str, Any], str] = {}
        #: set when ``holds`` changes, to wake the wait
        self.wake: asyncio.Future[None] | None = None

    def poke(self) -> None:
        if self.wake is not None and not self.wake.done():
            self.wake.set_result(None)


@dataclass
class Asking:
    """A server request open with a handler that asks the user, and the requests whose clocks it stopped."""

    key: tuple[str, Any]
    task: asyncio.Task[Any]  #: the task answering it (cancelled when the server cancels the request)
    held: list[Waiter]


_holds = itertools.count(1)


def hold_clock(session: Session, msg_id: Any, why: str) -> Callable[[], None] | None:
    """Stop the timeout clock of the request ``msg_id`` that ``session`` waits for while a person decides on it
    (``why``: ``paused at rule 1 (pause)``), as a server request the user answers does; returns what starts the
    clock again in full (None when no request of that id is waited for)."""
    waiter = session.waiters.get(id_key(msg_id))
    if waiter is None:
        return None
    key = ("hold", next(_holds))
    waiter.holds[key] = why
    waiter.poke()

    def release() -> None:
        if waiter.holds.pop(key, None) is not None:
            waiter.poke()

    return release
