"""The loopback redirect listener of RFC 8252 section 7.3: the one listening port the inspector ever opens.

https://www.rfc-editor.org/rfc/rfc8252#section-7.3. It is opened only for a login the user started, on
127.0.0.1 only (never 0.0.0.0, never localhost, which may resolve elsewhere), on a port the kernel picks; it
accepts one request, the redirect whose ``state`` matches the login's, answers it with a short page and
closes at once; without one it closes after :data:`LOGIN_TIMEOUT`. A request with another state (or another
path) is answered 400 and does not end the wait.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import parse_qsl, urlsplit

from inspector.core.auth.model import RULES, AuthError, Step
from inspector.core.waiting import wait_for

#: How long a login may take in the browser (RFC 8252 leaves it to the client; a person signs in, maybe with a
#: second factor): after this the port is closed and the login fails.
LOGIN_TIMEOUT = 300.0
#: Bound on reading one request from the browser (a connection that sends nothing must not hold the port).
READ_TIMEOUT = 10.0
#: The most of a request line and headers read.
MAX_REQUEST = 16 * 1024
CALLBACK_PATH = "/callback"
HOST = "127.0.0.1"

_DONE_PAGE = (b"<!doctype html><meta charset=utf-8><title>mcp-inspector</title>"
              b"<p>Signed in. You can close this tab and go back to mcp-inspector.</p>")
_WRONG_PAGE = b"<!doctype html><meta charset=utf-8><title>mcp-inspector</title><p>Not the expected request.</p>"


class LoopbackListener:
    """``await open()`` to listen; :attr:`redirect_uri`; ``await wait(state)`` for the redirect URL;
    ``await close()`` (also done by ``wait``)."""

    def __init__(self, timeout: float = LOGIN_TIMEOUT) -> None:
        self.timeout = timeout
        self.port = 0
        self._server: asyncio.base_events.Server | None = None
        self._state: str | None = None
        self._result: asyncio.Future[str] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://{HOST}:{self.port}{CALLBACK_PATH}"

    @property
    def is_open(self) -> bool:
        return self._server is not None

    async def open(self) -> str:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, HOST, 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.redirect_uri

    async def wait(self, state: str) -> str:
        """The full redirect URL whose state is ``state``; AuthError after the timeout. Closes the port."""
        assert self._result is not None, "open() first"
        self._state = state
        try:
            return await wait_for(asyncio.shield(self._result), self.timeout)
        except TimeoutError:
            raise AuthError(f"OAuth authorize: no redirect reached {self.redirect_uri} within {self.timeout:g} s, "
                            "so the login was given up and the port closed",
                            Step("authorize", self.redirect_uri, "failed", "no redirect came back in time",
                                 RULES["authorize"])) from None
        finally:
            await self.close()

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await wait_for(reader.readuntil(b"\r\n\r\n"), READ_TIMEOUT)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        line = head[:MAX_REQUEST].split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        target = parts[1] if len(parts) == 3 and parts[0] == "GET" else ""
        split = urlsplit(target)
        state = dict(parse_qsl(split.query)).get("state")
        matches = split.path == CALLBACK_PATH and self._state is not None and state == self._state
        body = _DONE_PAGE if matches else _WRONG_PAGE
        status = b"200 OK" if matches else b"400 Bad Request"
        writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: "
                     + str(len(body)).encode() + b"\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n" + body)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()
        if matches and self._result is not None and not self._result.done():
            self._result.set_result(f"http://{HOST}:{self.port}{target}")
            await self.close()
