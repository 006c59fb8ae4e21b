"""``mcp-inspector listen``: connect, ask for every change the server can announce, and print each notification
it sends as one line of JSON, for ``--for`` seconds or until interrupted.

On a 2026-07-28 server that is a ``subscriptions/listen`` stream (:mod:`inspector.core.explore.subscriptions`)
asking for each list it declares and for updates of the ``--resource`` URIs; before 2026-07-28 list changes come
unasked and each ``--resource`` is subscribed with ``resources/subscribe``. Every notification from the server is
handed to the job's ``on_notification`` (the acknowledgement and anything else included: this is a debugger), in
order. A run under ``run_oneshot``, so connecting, the handshake, the capture and the exit statuses are the
one-shot commands' (:data:`inspector.core.exits.LISTEN_EXITS`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from inspector.core.exits import EXIT_OK, EXIT_RPC_ERROR, EXIT_SERVER_FAILED
from inspector.core.explore.subscriptions import Subscription, Subscriptions, filter_for
from inspector.core.session.outcomes import result_of
from inspector.core.session.session import Session
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind

if TYPE_CHECKING:
    from inspector.core.explore.oneshot import OneShot, OneShotResult


async def listen(session: Session, job: OneShot, timeout: float) -> OneShotResult:
    """Listen as the module's notes say; the outcome once ``job.listen_for`` elapsed or the stream ended."""
    from inspector.core.explore.oneshot import OneShotResult

    tell = job.on_notification

    def hear(events: list[Event]) -> None:
        for event in events:
            rpc = event.rpc
            if tell is not None and event.kind == Kind.MESSAGE and event.dir == Direction.S2C and rpc is not None \
                    and rpc.kind == jsonrpc.NOTIFICATION:
                try:
                    tell(event.json())
                except ValueError:
                    continue

    session.listeners.append(hear)
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[Subscription] = loop.create_future()
    if session.modern:
        subscriptions = Subscriptions(session)
        caps = session.server.capabilities if session.server is not None else {}
        wanted = filter_for(caps)
        if job.resources:  # asked for: the server's acknowledgement says whether it honours them
            wanted["resourceSubscriptions"] = list(job.resources)

        def over(subscription: Subscription) -> None:
            if subscription.ended is not None and not ended.done():
                ended.set_result(subscription)

        subscriptions.listeners.append(over)
        await subscriptions.listen(wanted)
    else:
        for uri in job.resources:
            response = await session.request("resources/subscribe", {"uri": uri}, timeout=timeout)
            _result, error = result_of(response)
            if error is not None:
                message = error.get("message") if isinstance(error, dict) else error
                return OneShotResult(EXIT_RPC_ERROR, error=f"the server refused resources/subscribe to {uri}: "
                                                           f"{message}", rpc_error=error)
    closed = asyncio.ensure_future(session.wait_closed())
    try:
        done, _ = await asyncio.wait((ended, closed), timeout=job.listen_for, return_when=asyncio.FIRST_COMPLETED)
    finally:
        closed.cancel()
    return _outcome(ended.result() if ended in done else None, closed in done and ended not in done, session)


def _outcome(subscription: Subscription | None, connection_ended: bool, session: Session) -> OneShotResult:
    from inspector.core.explore.oneshot import OneShotResult

    if connection_ended:
        return OneShotResult(EXIT_SERVER_FAILED, error=session.diagnosis("the notifications") or
                             "the connection ended while listening")
    if subscription is not None and subscription.ended is not None and "refused" in subscription.ended:
        return OneShotResult(EXIT_RPC_ERROR, error=f"subscriptions/listen: {subscription.ended}")
    return OneShotResult(EXIT_OK)
