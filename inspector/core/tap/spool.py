"""The tap's spool: how the relay hands every byte it relays to the recorder without waiting for it.

The relay (:mod:`inspector.core.tap.relay`) appends *frames* (a tag, the time it read the bytes, the bytes) to an
unlinked temporary file, and writes a one-byte wake-up token to a pipe; the recorder, a forked process at a
low priority, follows the file from its own offset, decodes at its own pace and publishes how far it got in
a word of shared memory. Why a file and not a pipe: a pipe holds 1 MiB, so during a flood a recorder that
decodes at 30-40 MB/s (the Python framing decoder, correlator and capture writer) held the relay back, or
made it queue hundreds of megabytes in its own memory. Appending to a file costs the relay a ``writev`` into
the page cache, whatever the recorder's pace; the recorder catches up when the flood is over, and the
capture completes then. Consumed regions of the file are given back to the file system as the recorder
passes them (hole punching, Linux), so the disk holds only the backlog.

The backlog is still bounded (:data:`DEFAULT_BACKLOG`, ``$MCP_INSPECTOR_TAP_BACKLOG``): beyond it the relay
pauses its sources until the recorder is halfway back, so a recorder that cannot keep up at all costs
throughput, never bytes.

Frame layout (native to this machine, never stored): ``<BIdd`` tag, payload length, ``t`` (seconds since
the tap started), ``wall`` (epoch seconds), then the payload.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import mmap
import os
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

FRAME = struct.Struct("<BIdd")
#: The relay pauses when the recorder is this far behind (bytes of frames).
DEFAULT_BACKLOG = 1024 * 1024 * 1024
BACKLOG_ENV = "MCP_INSPECTOR_TAP_BACKLOG"
#: While paused, how often the relay looks whether the recorder caught up (seconds).
RESUME_POLL = 0.01
#: The recorder reads this much of the spool at a time.
READ_SIZE = 1 << 20
#: Consumed spool space is given back in steps of this size.
PUNCH_STEP = 16 << 20

_COUNTER = struct.Struct("<q")


def backlog_bound() -> int:
    try:
        return max(1, int(os.environ.get(BACKLOG_ENV, DEFAULT_BACKLOG)))
    except ValueError:
        return DEFAULT_BACKLOG


class Spool:
    """The shared parts, made before the fork: the unlinked file, the wake-up pipe, the consumed counter.

    After the fork the relay calls :meth:`for_relay` and the recorder :meth:`for_recorder`, each closing the
    pipe end it does not use.
    """

    def __init__(self, folder: Path | None) -> None:
        self.fd = self._unlinked_file(folder)
        try:
            self.wake_r, self.wake_w = os.pipe()
        except OSError:
            os.close(self.fd)
            raise
        self.consumed = mmap.mmap(-1, _COUNTER.size)  # anonymous and shared: both sides of the fork see it

    @staticmethod
    def _unlinked_file(folder: Path | None) -> int:
        """A private (0600) file that no one else can open, next to the capture (on disk, not in a tmpfs)
        when possible."""
        for where in (folder, None):
            try:
                fd, name = tempfile.mkstemp(prefix=".tap-spool-", dir=where)
            except OSError:
                if where is None:
                    raise
                continue
            os.unlink(name)
            return fd
        raise OSError("no folder for the spool")  # pragma: no cover - the loop returns or raises

    def for_relay(self) -> None:
        os.close(self.wake_r)

    def for_recorder(self) -> None:
        os.close(self.wake_w)


class SpoolWriter:
    """The relay's end. :meth:`send` never waits for the recorder: one ``writev`` into the page cache and a
    wake-up token. Past the backlog bound it calls ``on_pause`` and, once the recorder is halfway back,
    ``on_resume``."""

    def __init__(self, spool: Spool, t0: float, on_pause: Callable[[], None], on_resume: Callable[[], None],
                 on_lost: Callable[[str], None]) -> None:
        self._spool = spool
        self._fd: int | None = spool.fd
        self._wake: int | None = spool.wake_w
        os.set_blocking(spool.wake_w, False)
        self._t0 = t0
        self._on_pause = on_pause
        self._on_resume = on_resume
        self._on_lost = on_lost
        self._high = backlog_bound()
        self._written = 0
        self._paused = False
        self._poll: asyncio.TimerHandle | None = None
        self._splice_file = hasattr(os, "splice")

    @property
    def backlog(self) -> int:
        consumed: int = _COUNTER.unpack_from(self._spool.consumed)[0]
        return self._written - consumed

    def send(self, tag: int, data: bytes | memoryview = b"") -> None:
        fd = self._fd
        if fd is None:
            return
        header = FRAME.pack(tag, len(data), time.monotonic() - self._t0, time.time())
        size = len(header) + len(data)
        try:
            written = os.writev(fd, [header, data] if data else [header])
            if written != size:  # a regular file only writes short when the disk is full
                raise OSError(28, f"the spool took {written} of {size} bytes")
        except OSError as exc:
            self._lost(exc)
            return
        self._sent(size)

    @property
    def recording(self) -> bool:
        """Whether frames still go to the recorder (False once it is lost)."""
        return self._fd is not None

    def send_spliced(self, tag: int, src: int, size: int) -> None:
        """One frame whose ``size`` bytes are waiting in pipe ``src``: the header is written, then the bytes are
        moved from the pipe into the spool by the kernel (``splice``; copied through memory where the file
        system refuses splicing). All ``size`` bytes leave ``src`` whatever happens, so the pipe stays in step
        with what the relay teed from it."""
        fd = self._fd
        left = size
        try:
            if fd is None:
                raise OSError(errno.EBADF, "the spool is closed")
            header = FRAME.pack(tag, size, time.monotonic() - self._t0, time.time())
            if os.write(fd, header) != len(header):
                raise OSError(errno.ENOSPC, "the spool took part of a frame header")
            while left:
                moved = self._move(src, fd, left)
                if moved <= 0:
                    raise OSError(errno.EIO, "the pipe held fewer bytes than it was teed")
                left -= moved
        except OSError as exc:
            _discard(src, left)
            self._lost(exc)
            return
        self._sent(FRAME.size + size)

    def _move(self, src: int, fd: int, size: int) -> int:
        if self._splice_file:
            try:
                return os.splice(src, fd, size)
            except OSError as exc:
                if exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                    raise
                self._splice_file = False  # this file system does not splice: copy, as the relay does elsewhere
        data = os.read(src, size)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        return len(data)

    def _sent(self, size: int) -> None:
        self._written += size
        self._wake_recorder()
        if not self._paused and self.backlog > self._high:
            self._paused = True
            self._on_pause()
            self._poll = asyncio.get_running_loop().call_later(RESUME_POLL, self._check_resume)

    def _wake_recorder(self) -> None:
        if self._wake is None:
            return
        try:
            os.write(self._wake, b"\x01")
        except BlockingIOError:
            pass  # the pipe is full of tokens: the recorder has been woken already
        except OSError as exc:  # the recorder is gone
            self._lost(exc)

    def _check_resume(self) -> None:
        self._poll = None
        if not self._paused:
            return
        if self.backlog <= self._high // 2:
            self._paused = False
            self._on_resume()
        else:
            self._poll = asyncio.get_running_loop().call_later(RESUME_POLL, self._check_resume)

    def unbounded(self) -> None:
        """The server is gone: what is left is finite, and the client must get it without waiting."""
        self._high = 1 << 62
        self._check_resume()

    def close(self) -> None:
        """No more frames: the recorder sees the end of the wake-up pipe, reads the rest and finishes."""
        if self._poll is not None:
            self._poll.cancel()
            self._poll = None
        for fd in (self._wake, self._fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._wake = self._fd = None

    def _lost(self, exc: OSError) -> None:
        self.close()
        self._on_lost(f"the recorder stopped ({exc.strerror or exc}); relaying continues without recording")
        if self._paused:
            self._paused = False
            self._on_resume()


class SpoolReader:
    """The recorder's end: complete frames in the order they were sent, as fast as it asks for them."""

    def __init__(self, spool: Spool) -> None:
        self._fd = spool.fd
        self._wake = spool.wake_r
        self._consumed = spool.consumed
        self._offset = 0  # of the file, read so far
        self._buffer = bytearray()
        self._pos = 0  # in the buffer, parsed so far
        self._punched = 0
        self.ended = False  # the relay closed its end: what the file holds now is all there will be

    def take(self) -> list[tuple[int, float, float, bytes]]:
        """The complete frames available now (up to about :data:`READ_SIZE` bytes of them)."""
        chunk = os.pread(self._fd, READ_SIZE, self._offset)
        if chunk:
            self._offset += len(chunk)
            if self._pos:
                del self._buffer[:self._pos]
                self._pos = 0
            self._buffer += chunk
        frames = []
        buffer, pos, end = self._buffer, self._pos, len(self._buffer)
        unpack, header = FRAME.unpack_from, FRAME.size
        while end - pos >= header:
            tag, size, t, wall = unpack(buffer, pos)
            if end - pos - header < size:
                break
            frames.append((tag, t, wall, bytes(buffer[pos + header:pos + header + size])))
            pos += header + size
        self._pos = pos
        done = self._offset - (end - pos)
        _COUNTER.pack_into(self._consumed, 0, done)
        if done - self._punched >= PUNCH_STEP:
            self._punched = _punch_hole(self._fd, done, self._punched)
        return frames

    async def wait(self) -> None:
        """Until the relay has written more (or closed its end, which sets :attr:`ended`)."""
        loop = asyncio.get_running_loop()
        woken: asyncio.Future[None] = loop.create_future()
        loop.add_reader(self._wake, waker(woken))
        try:
            await woken
        finally:
            loop.remove_reader(self._wake)
        try:
            tokens = os.read(self._wake, 65536)
        except BlockingIOError:
            return
        if not tokens:
            self.ended = True

    @property
    def leftover(self) -> int:
        """Bytes of an incomplete last frame (the relay was killed while writing it)."""
        return len(self._buffer) - self._pos

    def close(self) -> None:
        for fd in (self._fd, self._wake):
            with contextlib.suppress(OSError):
                os.close(fd)


_FALLOC_FL_KEEP_SIZE = 0x01
_FALLOC_FL_PUNCH_HOLE = 0x02


def _discard(src: int, size: int) -> None:
    """Take ``size`` bytes out of pipe ``src`` (already teed to their destination) and drop them."""
    with contextlib.suppress(OSError):
        while size > 0:
            data = os.read(src, min(size, 1 << 20))
            if not data:
                return
            size -= len(data)


def waker(future: asyncio.Future[None]) -> Callable[[], None]:
    """A reader callback that resolves ``future``, once: a readable descriptor calls it until it is removed."""
    def wake() -> None:
        if not future.done():
            future.set_result(None)
    return wake


def _punch_hole(fd: int, upto: int, punched: int) -> int:
    """Give the file system back the spool's bytes before ``upto`` (Linux only; elsewhere the spool keeps
    its size until the tap ends). Returns how far the spool is punched now."""
    if not sys.platform.startswith("linux"):
        return upto
    upto -= upto % 4096
    fallocate = _fallocate()
    if fallocate is not None:
        # a file system without holes refuses (-1): it keeps the bytes until the tap ends, only disk space is lost
        fallocate(fd, _FALLOC_FL_PUNCH_HOLE | _FALLOC_FL_KEEP_SIZE, punched, upto - punched)
    return upto


@functools.cache
def _fallocate() -> Callable[[int, int, int, int], int] | None:
    try:
        import ctypes

        function = ctypes.CDLL(None, use_errno=True).fallocate
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
    return function
