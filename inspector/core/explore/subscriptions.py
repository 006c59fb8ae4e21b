"""Hearing what changes on a server: ``subscriptions/listen`` on 2026-07-28 servers, ``resources/subscribe`` before.

https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions: a 2026-07-28 server sends
no notification the client did not ask for. The client opens a stream with a ``subscriptions/listen`` request whose
``notifications`` filter says what it wants (``toolsListChanged``, ``promptsListChanged``,
``resourcesListChanged``, ``resourceSubscriptions``: URIs); the server acknowledges with
``notifications/subscriptions/acknowledged`` (the subset it honours), and every notification on the stream carries
the request's id as ``_meta["io.modelcontextprotocol/subscriptionId"]``. The request stays open: its answer, if
one comes, ends the subscription gracefully; the client ends it with ``notifications/cancelled`` (stdio) or by
closing the stream (HTTP), which :meth:`Session.cancel` does as the transport allows. A filter cannot change: a
new one is a new subscription, and the old one is then cancelled.

:class:`Subscriptions` keeps a session's subscription (:attr:`Subscriptions.current`, with what was asked, what was
acknowledged, how many notifications came, how it ended) and tells its listeners each change. Before 2026-07-28
there is nothing to open: list changes come unasked, and resources are subscribed one by one with
``resources/subscribe`` (the catalog's). The notifications themselves are acted on by their hearers (the catalog
lists again, the headless ``listen`` prints them). No Qt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.core.session.session import Session
from inspector.core.transports.base import TransportError
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind, params_of
from inspector.core.wire.ids import id_key

LISTEN = "subscriptions/listen"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
#: The notification each filter field asks for.
FILTER_FIELDS = {
    "toolsListChanged": "notifications/tools/list_changed",
    "promptsListChanged": "notifications/prompts/list_changed",
    "resourcesListChanged": "notifications/resources/list_changed",
    "resourceSubscriptions": "notifications/resources/updated",
}
#: The capability each list kind is declared under.
_LIST_FIELDS = {"tools": "toolsListChanged", "prompts": "promptsListChanged", "resources": "resourcesListChanged"}


def filter_for(capabilities: Any, uris: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``notifications`` filter that asks for every list change the server can announce (each list it
    declares) and for updates of ``uris`` (when it declares ``resources.subscribe``)."""
    caps = capabilities if isinstance(capabilities, dict) else {}
    wanted: dict[str, Any] = {name: True for kind, name in _LIST_FIELDS.items() if isinstance(caps.get(kind), dict)}
    resources = caps.get("resources")
    if uris and isinstance(resources, dict) and resources.get("subscribe") is True:
        wanted["resourceSubscriptions"] = list(uris)
    return wanted


def describe_filter(notifications: Any) -> str:
    """A filter (asked or acknowledged) in words: ``tools, prompts lists; updates of 2 resources``."""
    if not isinstance(notifications, dict):
        return "nothing"
    lists = [kind for kind, name in _LIST_FIELDS.items() if notifications.get(name) is True]
    uris = notifications.get("resourceSubscriptions")
    parts = [f"{', '.join(lists)} list changes"] if lists else []
    if isinstance(uris, list) and uris:
        parts.append(f"updates of {len(uris)} resource{'s' if len(uris) != 1 else ''}")
    return "; ".join(parts) or "nothing"


@dataclass
class Subscription:
    """One ``subscriptions/listen`` stream."""

    msg_id: Any
    asked: dict[str, Any]
    acknowledged: dict[str, Any] | None = None
    notifications: int = 0  #: notifications that came on it (the acknowledgement left out)
    ended: str | None = None  #: how it ended, a clause; None while open
    outside: list[str] = field(default_factory=list)  #: notifications it brought that its filter did not ask for

    def line(self) -> str:
        """One line for a status: the subscription id, what it hears, and how it stands."""
        if self.ended is not None:
            state = f"ended ({self.ended})"
        elif self.acknowledged is None:
            state = f"asked for {describe_filter(self.asked)}; not acknowledged yet"
        else:
            state = f"hearing {describe_filter(self.acknowledged)}"
        count = self.notifications
        return f"subscription {self.msg_id}: {state}; {count} notification{'' if count == 1 else 's'}"


def subscription_id(event: Event) -> Any:
    """The ``io.modelcontextprotocol/subscriptionId`` a message's ``_meta`` names (None when it names none)."""
    if SUBSCRIPTION_ID.encode() not in event.raw:
        return None
    try:
        obj = event.json()
    except ValueError:
        return None
    for holder in (obj.get("params"), obj.get("result")) if isinstance(obj, dict) else ():
        meta = holder.get("_meta") if isinstance(holder, dict) else None
        if isinstance(meta, dict) and SUBSCRIPTION_ID in meta:
            return meta[SUBSCRIPTION_ID]
    return None


class Subscriptions:
    """A session's ``subscriptions/listen`` stream (see the module's notes). :meth:`attach` to hear the session;
    ``listeners`` are told the subscription each time it changes."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.current: Subscription | None = None
        self.past: list[Subscription] = []  #: subscriptions that ended, oldest first (bounded)
        self.listeners: list[Callable[[Subscription], None]] = []

    @property
    def available(self) -> bool:
        """The session speaks 2026-07-28: changes are heard only on a subscription."""
        return self.session.modern

    def attach(self) -> None:
        if self._on_events not in self.session.listeners:
            self.session.listeners.append(self._on_events)

    def detach(self) -> None:
        if self._on_events in self.session.listeners:
            self.session.listeners.remove(self._on_events)

    async def listen(self, notifications: dict[str, Any]) -> Subscription:
        """Open a subscription with the filter ``notifications`` (the one open before is cancelled once the new
        one is sent, so nothing is missed between them). Returns at once: the request stays open. Raises the
        session's errors when it cannot be sent."""
        self.attach()
        msg_id = self.session.next_id()
        subscription = Subscription(msg_id, dict(notifications))
        previous, self.current = self.current, subscription
        self._tell(subscription)
        request = self.session.prepare_request({"jsonrpc": "2.0", "id": msg_id, "method": LISTEN,
                                                "params": {"notifications": notifications}})
        try:
            await self.session.send_object(request)
        except TransportError:
            subscription.ended = "it could not be sent"
            self.current = previous
            raise
        if previous is not None and previous.ended is None:
            await self._cancel(previous, "replaced by a subscription with another filter")
        return subscription

    async def close(self, reason: str = "closed by mcp-inspector") -> None:
        """Cancel the open subscription, if any."""
        if self.current is not None and self.current.ended is None:
            await self._cancel(self.current, reason)

    async def _cancel(self, subscription: Subscription, reason: str) -> None:
        subscription.ended = reason
        self._retire(subscription)
        if not self.session.closed:
            try:
                await self.session.cancel(subscription.msg_id, reason)
            except TransportError:
                pass  # the server is gone: so is the subscription

    def _retire(self, subscription: Subscription) -> None:
        self.past = [*self.past, subscription][-20:]
        if self.current is subscription:
            self.current = None
        self._tell(subscription)

    def _tell(self, subscription: Subscription) -> None:
        for listener in list(self.listeners):
            listener(subscription)

    def _on_events(self, events: list[Event]) -> None:
        current = self.current
        for event in events:
            rpc = event.rpc
            if current is None or event.kind != Kind.MESSAGE or rpc is None:
                if event.kind == Kind.LIFECYCLE and current is not None and self.session.closed:
                    current.ended = "the connection ended"
                    self._retire(current)
                    current = None
                continue
            if event.dir != Direction.S2C:
                continue
            if rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and id_key(rpc.id) == id_key(current.msg_id):
                current.ended = ("the server ended it" if rpc.kind == jsonrpc.RESPONSE
                                 else f"the server refused it: {_error_message(event)}")
                self._retire(current)
                current = None
            elif rpc.kind == jsonrpc.NOTIFICATION and id_key(subscription_id(event)) == id_key(current.msg_id):
                if rpc.method == ACKNOWLEDGED:
                    found = params_of(event).get("notifications")
                    current.acknowledged = found if isinstance(found, dict) else {}
                else:
                    current.notifications += 1
                    if not asked_for(current.asked, rpc.method or "", params_of(event)):
                        current.outside.append(rpc.method or "")
                self._tell(current)


def asked_for(notifications: dict[str, Any], method: str, params: dict[str, Any]) -> bool:
    """Whether a filter asked for this notification (a resource update: for its URI)."""
    for name, wanted in FILTER_FIELDS.items():
        if wanted != method:
            continue
        if name == "resourceSubscriptions":
            uris = notifications.get(name)
            return isinstance(uris, list) and params.get("uri") in uris
        return notifications.get(name) is True
    return True  # not a kind a filter governs (progress, a log message)


async def wait_for_acknowledgement(subscriptions: Subscriptions, subscription: Subscription, timeout: float) -> bool:
    """Wait up to ``timeout`` for ``subscription`` to be acknowledged (or to end); whether it was acknowledged."""
    if subscription.acknowledged is None and subscription.ended is None:
        heard: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def hear(changed: Subscription) -> None:
            if changed is subscription and (changed.acknowledged is not None or changed.ended is not None) \
                    and not heard.done():
                heard.set_result(None)

        subscriptions.listeners.append(hear)
        try:
            await asyncio.wait((heard,), timeout=timeout)
        finally:
            subscriptions.listeners.remove(hear)
    return subscription.acknowledged is not None


def _error_message(event: Event) -> str:
    try:
        error = event.json().get("error")
    except (ValueError, AttributeError):
        return "an unreadable error"
    return str(error.get("message")) if isinstance(error, dict) else "an error"
