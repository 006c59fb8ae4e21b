"""A synchronous MCP client for tests, on the inspector's own session (:func:`inspector.core.connect.opened`).

The session lives on a private event loop in a daemon thread, so the server's messages are read (and its
requests answered) between the test's calls, and a test that runs its own event loop is not disturbed; each call
waits for its answer there. Every session is saved to a capture.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TypeVar

from inspector.core.connect.opened import opened
from inspector.core.connect.target import Target
from inspector.core.session.outcomes import error_text, result_of
from inspector.core.session.session import Session
from inspector.core.transports.base import TransportError

T = TypeVar("T")
#: How long opening or closing the session may take beyond the target's own timeouts.
GRACE = 10.0


class McpError(AssertionError):
    """The server answered a request with an error; ``error`` is the JSON-RPC error object."""

    def __init__(self, method: str, error: Any) -> None:
        super().__init__(f"{method} was answered with an error: {error_text(error)}")
        self.error = error


class McpGone(McpError):
    """The request got no answer: the server went away or did not answer in time (``error`` is None)."""

    def __init__(self, method: str, why: str) -> None:
        AssertionError.__init__(self, f"{method} got no answer: {why}")
        self.error = None


class McpClient:
    """A started session on ``target``, saving to ``capture``; :meth:`close` ends it (and the server)."""

    def __init__(self, target: Target, capture: Path) -> None:
        self.target = target
        self.capture = capture
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp_client", daemon=True)
        self._thread.start()
        self._stack = AsyncExitStack()
        self._session: Session | None = None
        try:
            self._session = self._run(self._open(), target.connect_timeout + target.timeout + GRACE)
        except BaseException:
            self._stop()
            raise

    async def _open(self) -> Session:
        return await self._stack.enter_async_context(opened(self.target, self.capture))

    def _run(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def _stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(GRACE)
        if not self._thread.is_alive():
            self._loop.close()

    @property
    def session(self) -> Session:
        if self._session is None:
            raise RuntimeError("the MCP session is closed")
        return self._session

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The result of ``method`` as a dict; raises :class:`McpError` when the server answers with an error,
        :class:`McpGone` when it gives no answer (it exited, or the target's timeout passed)."""
        session = self.session
        timeout = self.target.timeout
        try:
            response = self._run(session.request(method, params, timeout=timeout), timeout + GRACE)
        except TransportError as exc:
            raise McpGone(method, str(exc)) from None
        result, error = result_of(response)
        if error is not None:
            raise McpError(method, error)
        return result if isinstance(result, dict) else {"result": result}

    def tools(self) -> list[str]:
        """The names of the server's tools (every page of ``tools/list``)."""
        names: list[str] = []
        cursor: str | None = None
        while True:
            page = self.request("tools/list", {"cursor": cursor} if cursor else None)
            names += [str(tool.get("name")) for tool in page.get("tools", []) if isinstance(tool, dict)]
            cursor = page.get("nextCursor")
            if not cursor:
                return names

    def call(self, tool: str, /, **arguments: Any) -> dict[str, Any]:
        """The result of ``tools/call`` on ``tool`` with ``arguments`` (a tool's own failure is a result with
        ``isError``, as the protocol says; only a JSON-RPC error raises)."""
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def read(self, uri: str) -> dict[str, Any]:
        """The result of ``resources/read`` on ``uri``."""
        return self.request("resources/read", {"uri": uri})

    def close(self) -> None:
        """End the session and the server, and close the capture; closing twice does nothing."""
        if self._session is None:
            return
        self._session = None
        try:
            self._run(self._stack.aclose(), GRACE + 5)
        finally:
            self._stop()
