"""The relay's ends of its pipes (:mod:`inspector.core.tap.relay`): what it reads (a :class:`Source`, paused while
a place its bytes go is full) and where it writes (a :class:`Sink` with flow control, or plain writes to a regular
file), and the descriptors' care (made non-blocking and back, enlarged)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import Callable
from typing import Any

from inspector.core.tap import splice
from inspector.core.transports.draining import read_fd


class FlowProtocol(asyncio.Protocol):
    """Routes a write transport's flow-control calls to its owner."""

    def __init__(self, owner: Any) -> None:
        self.owner = owner

    def pause_writing(self) -> None:
        self.owner.pause_writing()

    def resume_writing(self) -> None:
        self.owner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner.connection_lost(exc)


class Source:
    """Something the relay reads (client stdin, server stdout, server stderr), paused while any of the
    places its bytes go is full."""

    def __init__(self) -> None:
        self.transport: asyncio.ReadTransport | splice.PipeSplicer | None = None
        self.reasons: set[str] = set()
        self.unpaused = asyncio.Event()  # for a regular file read by a task
        self.unpaused.set()

    def pause(self, reason: str) -> None:
        if not self.reasons:
            self.unpaused.clear()
            if self.transport is not None:
                with contextlib.suppress(RuntimeError, AttributeError, OSError):
                    self.transport.pause_reading()
        self.reasons.add(reason)

    def resume(self, reason: str) -> None:
        if reason not in self.reasons:
            return
        self.reasons.discard(reason)
        if not self.reasons:
            self.unpaused.set()
            if self.transport is not None:
                with contextlib.suppress(RuntimeError, AttributeError, OSError):
                    self.transport.resume_reading()


class Fd:
    """A descriptor handed to an asyncio pipe transport, which makes it non-blocking: closing it restores the
    blocking mode first, because a terminal's description is shared with the shell."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.blocking = os.get_blocking(fd)

    def fileno(self) -> int:
        return self.fd

    def close(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.set_blocking(self.fd, self.blocking)
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1


def read_fd_of(transport: asyncio.ReadTransport | splice.PipeSplicer | None) -> int:
    """The descriptor a source's transport reads (-1 once closed)."""
    if isinstance(transport, splice.PipeSplicer):
        return -1 if transport.is_closing() else transport.src
    return read_fd(transport)


#: Pipes the relay reads or writes are enlarged to this (Linux): a flood then costs fewer wake-ups per byte.
PIPE_SIZE = 1 << 20


def enlarge_pipe(pipe: Any) -> None:
    with contextlib.suppress(OSError, AttributeError, ValueError, TypeError):
        import fcntl

        fd = pipe if isinstance(pipe, int) else pipe.fileno()
        if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) < PIPE_SIZE:
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)


def pipe_like(fd: int) -> bool:
    """Whether the event loop can watch ``fd``: a pipe, a socket or a terminal. A regular file or a device such
    as /dev/null cannot be polled (epoll refuses them); those are read and written directly."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))


class Sink:
    """Where the relay writes (server stdin is the subprocess transport's; these are the client's stdout and
    stderr): a non-blocking pipe transport with flow control, or plain writes for a regular file."""

    def __init__(self, source: Source | None, reason: str) -> None:
        self.source = source  # paused while this sink is full
        self.reason = reason
        self.transport: asyncio.WriteTransport | None = None
        self.fd: int | None = None
        self.broken = False
        self._closing = False
        self.on_broken: Callable[[], None] = lambda: None
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.feeder: splice.PipeSplicer | None = None  # splices into this sink's descriptor (zero-copy path)

    async def open(self, fd: int) -> None:
        if pipe_like(fd):
            enlarge_pipe(fd)
            loop = asyncio.get_running_loop()
            transport, _ = await loop.connect_write_pipe(lambda: FlowProtocol(self), Fd(fd))
            self.transport = transport
        else:
            self.fd = fd

    def write(self, data: bytes | memoryview) -> None:
        if self.broken:
            return
        if self.transport is not None:
            self.transport.write(data)
        elif self.fd is not None:
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(self.fd, view):]
            except OSError:
                self._broke()

    def close(self) -> None:
        self._closing = True
        self._detach_feeder()
        if self.transport is not None:
            self.transport.close()
        elif self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None
            self.connection_lost(None)
        elif not self.closed.done():
            self.closed.set_result(None)

    def abort(self) -> None:
        self._closing = True
        self._detach_feeder()
        if self.transport is not None:
            self.transport.abort()

    def pause_writing(self) -> None:
        if self.source is not None:
            self.source.pause(self.reason)

    def resume_writing(self) -> None:
        if self.source is not None:
            self.source.resume(self.reason)

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None or not self._closing:
            self._broke()  # the client closed its end (asyncio reports a peer that hung up without an error)
        self._detach_feeder()  # before asyncio closes the descriptor
        self.resume_writing()
        if not self.closed.done():
            self.closed.set_result(None)

    def _detach_feeder(self) -> None:
        if self.feeder is not None:
            self.feeder.detach()

    def _broke(self) -> None:
        if not self.broken:
            self.broken = True
            self.on_broken()
