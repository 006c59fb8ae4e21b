"""Serving a capture from elsewhere (the window's "Serve this capture…"): the command line a client's config runs
on stdio, and ``mcp-inspector serve CAPTURE --listen 127.0.0.1:0`` run as a subprocess for as long as someone
wants its URL.

:class:`HttpTwin` starts the command, takes the first line it prints on stdout as the URL (``serve --listen``
prints its URL there and nothing else; what it says goes to stderr), and stops it again: the port listens only
between :meth:`HttpTwin.start` and :meth:`HttpTwin.stop`. A command that ends, or prints no URL in
:data:`START_TIMEOUT`, is a :class:`LaunchError` whose message is one sentence (serve's own last line on stderr
when it said one).
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from inspector.core.waiting import wait_for

#: What a client's config runs: the command on the user's PATH, as the docs name it.
COMMAND = "mcp-inspector"
#: The loopback address the window's HTTP twin listens on (port 0: a free one).
LOOPBACK_ANY_PORT = "127.0.0.1:0"
#: How long the twin has to print its URL.
START_TIMEOUT = 20.0
#: How long a stopped twin has to end before it is killed.
STOP_TIMEOUT = 3.0
#: The most of a twin's stderr kept to say why it failed.
STDERR_KEPT = 16 << 10


class LaunchError(Exception):
    """The twin could not be started; the message is one sentence for the user."""


def stdio_argv(capture: Path) -> list[str]:
    """What a client's config runs to have ``capture`` served on stdio: ``mcp-inspector serve /abs/path``."""
    return [COMMAND, "serve", str(capture.resolve())]


def command_line(argv: Sequence[str]) -> str:
    """``argv`` as a shell would take it, to paste."""
    return shlex.join(argv)


def http_argv(capture: Path, socket: Path | None = None) -> list[str]:
    """The HTTP twin of ``capture`` with this Python (the window's own inspector), on a free loopback port;
    ``socket``: the window's tap socket, so its served sessions stream to that window."""
    argv = [sys.executable, "-m", "inspector", "serve", str(capture.resolve()), "--listen", LOOPBACK_ANY_PORT]
    if socket is not None:
        argv += ["--socket", str(socket)]
    return argv


class HttpTwin:
    """One twin served over HTTP, in a subprocess: :meth:`start` gives its URL, :meth:`stop` ends it."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = list(argv)
        self.url: str | None = None
        self.process: asyncio.subprocess.Process | None = None
        self._stderr = bytearray()
        self._drain: asyncio.Task[None] | None = None
        self._stopped = False  # stop() or kill_now() came: a process started after that ends at once

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def start(self, timeout: float = START_TIMEOUT) -> str:
        """Start the twin and return the URL it prints; raises :class:`LaunchError` (the process stopped)."""
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE)
        except OSError as exc:
            raise LaunchError(f"{self.argv[0]} cannot be started: {exc.strerror or exc}") from None
        if self._stopped:  # stopped while it was being started: it never listens
            await self.stop()
            raise LaunchError("stopped before it started")
        assert self.process.stdout is not None and self.process.stderr is not None
        self._drain = asyncio.ensure_future(self._keep_stderr(self.process.stderr))
        try:
            line = await wait_for(self.process.stdout.readline(), timeout)
        except TimeoutError:
            await self.stop()
            raise LaunchError(f"the twin printed no URL in {timeout:g} s") from None
        url = line.decode("utf-8", errors="replace").strip()
        if url.startswith(("http://", "https://", "ws://")):
            self.url = url
            return url
        if not line:  # stdout closed: the twin is ending, with its reason on stderr
            with contextlib.suppress(TimeoutError):
                await wait_for(self.process.wait(), STOP_TIMEOUT)
        code = await self.stop()
        if line:
            raise LaunchError(f"the twin printed {url[:80]!r} where its URL should be")
        raise LaunchError(self._said() or f"the twin ended (status {code}) without printing its URL")

    async def stop(self) -> int | None:
        """End the twin (SIGTERM, then SIGKILL after :data:`STOP_TIMEOUT`); its exit status (None when it had not
        started: then it never does)."""
        self._stopped = True
        process = self.process
        if process is None:
            return None
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            try:
                await wait_for(process.wait(), STOP_TIMEOUT)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        if self._drain is not None:
            with contextlib.suppress(TimeoutError):
                await wait_for(self._drain, STOP_TIMEOUT)
        self.url = None
        return process.returncode

    def kill_now(self) -> None:
        """End the twin without waiting (the window is going away): it gets SIGTERM."""
        self._stopped = True
        if self.running and self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                self.process.terminate()

    async def _keep_stderr(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(4096):
            self._stderr += chunk
            del self._stderr[:-STDERR_KEPT]

    def _said(self) -> str:
        """The twin's last line on stderr, without its ``mcp-inspector:`` prefix."""
        lines = [line.strip() for line in self._stderr.decode("utf-8", errors="replace").splitlines() if line.strip()]
        if not lines:
            return ""
        return lines[-1].removeprefix("mcp-inspector serve:").removeprefix("mcp-inspector:").strip()
