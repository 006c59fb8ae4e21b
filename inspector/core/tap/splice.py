"""The tap's zero-copy path (Linux): one direction relayed by the kernel, from pipe to pipe, with ``tee(2)``
and ``splice(2)``.

For each chunk the source pipe holds, ``tee`` duplicates it into the destination pipe (the pages are shared,
not copied), then ``splice`` moves the same bytes from the source into the recorder's spool file
(:meth:`inspector.core.tap.spool.SpoolWriter.send_spliced`), behind a frame header written as usual. The
bytes never enter the relay's memory; the recorder reads the spool as before. Without a recorder the chunk
is spliced straight to the destination.

Used only where both ends are pipes (``tee`` needs two); anything else (a socket, a terminal, a regular
file, another platform, ``MCP_INSPECTOR_TAP_SPLICE=0``) takes the copying path of
:mod:`inspector.core.tap.relay`, which relays the same bytes. Flow control is the pipes' own, as there: a
full destination pauses the reading of the source until it can take more.

:class:`PipeSplicer` stands in for an asyncio read transport (``pause_reading``, ``resume_reading``,
``close``), so the relay's pause reasons and shutdown work on it unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import functools
import os
import stat
import sys
from collections.abc import Callable
from typing import Any, Protocol

#: Set to ``0`` to make the tap copy bytes through its own memory even where splicing works (a comparison,
#: or a kernel whose splice misbehaves).
SPLICE_ENV = "MCP_INSPECTOR_TAP_SPLICE"
#: At most this many bytes per ``tee``: the size the relay enlarges its pipes to, so one call takes
#: whatever a full pipe holds.
CHUNK = 1 << 20
_SPLICE_F_NONBLOCK = 0x02


class SplicingLink(Protocol):
    """What a splicer needs of the link to the recorder (:class:`~inspector.core.tap.spool.SpoolWriter`)."""

    @property
    def recording(self) -> bool: ...

    def send_spliced(self, tag: int, src: int, size: int) -> None: ...


class Pausable(Protocol):
    def pause(self, reason: str) -> None: ...

    def resume(self, reason: str) -> None: ...


@functools.cache
def _libc_tee() -> Callable[[int, int, int, int], int] | None:
    try:
        function: Any = ctypes.CDLL(None, use_errno=True).tee
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.c_uint]
    function.restype = ctypes.c_ssize_t
    return function  # type: ignore[no-any-return]  # a ctypes function, typed by argtypes above


def tee(src: int, dst: int, size: int) -> int:
    """``tee(2)`` without blocking: duplicates up to ``size`` bytes of pipe ``src`` into pipe ``dst``; 0 at the
    end of ``src``; BlockingIOError when ``src`` is empty or ``dst`` full."""
    function = _libc_tee()
    if function is None:
        raise OSError(errno.ENOSYS, "tee is not available")
    result = function(src, dst, size, _SPLICE_F_NONBLOCK)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def is_pipe(fd: int | None) -> bool:
    if fd is None:
        return False
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


@functools.cache
def _works() -> bool:
    """Whether this kernel tees and splices between pipes (tried once, on a pipe of our own)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "splice") or _libc_tee() is None:
        return False
    a_r, a_w = os.pipe()
    b_r, b_w = os.pipe()
    try:
        os.write(a_w, b"ok")
        if tee(a_r, b_w, 2) != 2 or os.splice(a_r, b_w, 2) != 2:
            return False
        return os.read(b_r, 4) == b"okok"
    except OSError:
        return False
    finally:
        for fd in (a_r, a_w, b_r, b_w):
            os.close(fd)


def available() -> bool:
    """Whether the zero-copy path may be used: Linux with ``tee`` and ``splice``, not switched off."""
    if os.environ.get(SPLICE_ENV, "1").strip().lower() in ("0", "no", "false", "off"):
        return False
    return _works()


class PipeSplicer:
    """Relays pipe ``src`` to pipe ``dst`` in the kernel, each chunk also handed to ``link`` under ``tag``.

    Stands in for the asyncio read transport of ``src``: ``pause_reading``/``resume_reading`` (the relay's
    :class:`_Source` pause reasons), ``close``. When ``dst`` is full, ``source.pause(reason)`` until it can take
    more. At the end of ``src`` (or on :meth:`close`) ``src`` is closed and ``on_end`` is called soon after, as
    an asyncio protocol's ``connection_lost`` would be. The owner of ``dst`` calls :meth:`detach` before
    closing it.
    """

    def __init__(self, src: int, dst: int, link: SplicingLink, tag: int, source: Pausable, reason: str,
                 on_end: Callable[[], None]) -> None:
        self.loop = asyncio.get_running_loop()
        self.src = src
        self.dst = dst
        self.link = link
        self.tag = tag
        self.source = source
        self.reason = reason
        self.on_end = on_end
        self._paused = False
        self._reading = False
        self._waiting_dst = False
        self._dst_gone = False
        self._ended = False

    # -- the read-transport face the relay uses ----------------------------------------------------------

    def start(self) -> None:
        self._update()

    def pause_reading(self) -> None:
        self._paused = True
        self._update()

    def resume_reading(self) -> None:
        self._paused = False
        self._update()

    def is_closing(self) -> bool:
        return self._ended

    def close(self) -> None:
        """Stop relaying; close ``src`` (its writer then gets EPIPE, as if the reader had left)."""
        self._end()

    def detach(self) -> None:
        """``dst`` is being closed by its owner: nothing more goes to it, so relaying ends here."""
        self._dst_gone = True
        self._stop_waiting_dst()
        self._end()

    # -- the work ------------------------------------------------------------------------------------------

    def _update(self) -> None:
        want = not (self._paused or self._ended or self._dst_gone)
        if want and not self._reading:
            self.loop.add_reader(self.src, self._readable)
            self._reading = True
        elif not want and self._reading:
            self.loop.remove_reader(self.src)
            self._reading = False

    def _readable(self) -> None:
        try:
            if self.link.recording:
                size = tee(self.src, self.dst, CHUNK)
                if size:
                    self.link.send_spliced(self.tag, self.src, size)
            else:
                size = os.splice(self.src, self.dst, CHUNK, flags=_SPLICE_F_NONBLOCK)
        except BlockingIOError:
            # src is readable, so dst is full: wait until it takes more (an empty src only costs one turn)
            if not self._waiting_dst:
                self._waiting_dst = True
                self.loop.add_writer(self.dst, self._writable)
                self.source.pause(self.reason)
            return
        except OSError:
            # EPIPE: dst's reader is gone. Its owner learns it from dst itself (as it would without
            # splicing) and closes this splicer; until then nothing more is read.
            self._dst_gone = True
            self._update()
            return
        if size == 0:
            self._end()

    def _writable(self) -> None:
        self._stop_waiting_dst()
        self.source.resume(self.reason)

    def _stop_waiting_dst(self) -> None:
        if self._waiting_dst:
            self._waiting_dst = False
            with contextlib.suppress(ValueError, OSError, RuntimeError):
                self.loop.remove_writer(self.dst)

    def _end(self) -> None:
        if self._ended:
            return
        self._ended = True
        self._update()
        self._stop_waiting_dst()
        self.source.resume(self.reason)
        with contextlib.suppress(OSError):
            os.close(self.src)
        self.loop.call_soon(self.on_end)
