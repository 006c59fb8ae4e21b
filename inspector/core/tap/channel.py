"""The live channel from ``mcp-inspector tap`` to a running window: a private Unix domain socket, never TCP.

The window (the server side, :func:`listen`) listens on one well-known per-user socket; every tap (the client
side, :class:`TapFeed`) connects to it when it starts and streams what it records. Without a window the tap
just records; a window started later is found by the tap's next connection attempt (one a second).

Where the socket is (:func:`default_socket_path`): ``$MCP_INSPECTOR_TAP_SOCKET`` if set, else
``$XDG_RUNTIME_DIR/mcp-inspector/tap.sock``, else ``<data_dir>/run/tap.sock``. The listener creates the
directory with mode 0700 (and tightens an existing one it owns) and the socket with mode 0600. The listener
refuses a peer of another user (``SO_PEERCRED`` on Linux: the peer's uid must be ours; where the option does
not exist the 0700 directory is the guard). The tap in turn connects only to a socket it owns, in a directory
it owns that nobody else can write to, and (with ``SO_PEERCRED``) only to a listener of its own user: a
capture holds a session's messages, which may hold secrets.

Protocol, version 1: UTF-8 JSON, one object per line (``\\n``), tap to window only:

1. hello: ``{"type": "tap", "protocol": 1, "name": NAME, "pid": PID, "capture": PATH or null,
   "target": {...}, "next_seq": N}``. ``target`` is the capture header's (secrets redacted); ``next_seq`` is
   the ``seq`` of the first event this connection carries: a window that connects late finds the earlier
   events in the capture file. ``mcp-inspector serve --live`` says ``"role": "serve"`` and ``"serving": PATH``
   (the served capture) too (:mod:`inspector.core.serve.live`).
2. events: each exactly as a capture line (:func:`~inspector.core.capture.format.event_to_line`,
   ``docs/capture-format.md``); read them back with :func:`~inspector.core.capture.format.event_from_obj`.
3. ``{"type": "dropped", "count": N, "total": T}`` where the window was too slow: the tap never waits for the
   window, it drops the newest events once a bounded queue is full (the capture file still gets them all).
   The marker sits where the missing events were.
4. last: ``{"type": "end", "exit": CODE or null, "dropped": T}``: the server's exit status as the tap reports
   it (``128 + N`` for a death by signal N; null if the tap could not tell).

Control lines have a ``"type"``; event lines never do. Readers skip control types they do not know.

A connection whose hello has another ``type`` is not a tap's feed: ``breakpoints`` is a tap relay's link to its
tab's breakpoints (:mod:`inspector.core.tap.breakpoint_link`), ``faults`` a served capture's link to its serve
tab's fault toggles (:mod:`inspector.core.serve.fault_link`), handled by :func:`listen`'s ``others``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import socket
import stat
import struct
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from inspector.core.capture.format import CaptureError, event_from_obj
from inspector.core.paths import data_dir
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Event

PROTOCOL_VERSION = 1
#: Environment variable naming the socket (both sides honour it).
SOCKET_ENV = "MCP_INSPECTOR_TAP_SOCKET"
SOCKET_NAME = "tap.sock"
#: The window's side reads lines up to this size (an event line of a 64 MiB message, JSON-escaped, fits).
MAX_LINE_BYTES = 256 * 1024 * 1024
#: How long a new connection has to say hello before the listener drops it.
HELLO_TIMEOUT = 5.0
#: The tap keeps at most this much queued for the window; beyond it, new events are dropped (and counted).
MAX_QUEUED_BYTES = 8 * 1024 * 1024
#: While no window listens, the tap tries again this often.
RETRY_INTERVAL = 1.0
#: At the end, how long the tap waits for a slow window to take the rest and the end line.
CLOSE_TIMEOUT = 1.0
#: sun_path is 108 bytes on Linux and 104 on macOS, terminator included.
MAX_SOCKET_PATH = 103


class ChannelError(Exception):
    """The channel cannot be set up; the message is one sentence for the user."""


# -- where ------------------------------------------------------------------------------------------------


def default_socket_path(environ: Mapping[str, str] | None = None) -> Path:
    """The per-user socket the window listens on and taps connect to."""
    environ = os.environ if environ is None else environ
    override = environ.get(SOCKET_ENV)
    if override:
        return Path(override)
    runtime = environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        return Path(runtime) / "mcp-inspector" / SOCKET_NAME
    return data_dir() / "run" / SOCKET_NAME


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` with mode 0700 (parents as usual), or make an existing one we own 0700.

    Raises ChannelError when it is not a directory of ours (a symlink, a file, another user's folder)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise ChannelError(f"the folder {path} for the live channel cannot be created: {exc.strerror}") from None
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise ChannelError(f"{path} should be a folder for the live channel, but it is not one (a link or a file?)")
    if info.st_uid != os.getuid():
        raise ChannelError(f"the folder {path} for the live channel belongs to another user (uid {info.st_uid})")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)


def private_dir_problem(path: Path) -> str | None:
    """Why the socket at ``path`` must not be trusted (None when it may): it and its folder must be ours,
    and nobody else may write to the folder."""
    try:
        folder = os.stat(path.parent)
        sock = os.lstat(path)
    except FileNotFoundError:
        return None  # nothing listens; connecting will just fail
    except OSError as exc:
        return f"{path} cannot be checked: {exc.strerror}"
    uid = os.getuid()
    if folder.st_uid != uid or stat.S_IMODE(folder.st_mode) & 0o022:
        return f"the folder of {path} is not private (it must belong to you and be writable only by you)"
    if not stat.S_ISSOCK(sock.st_mode) or sock.st_uid != uid:
        return f"{path} is not a socket of yours"
    return None


def peer_uid(sock: socket.socket | None) -> int | None:
    """The uid of the process at the other end of a Unix socket, where the system tells (Linux)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if sock is None or option is None:
        return None
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return None
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


def peer_pid(sock: socket.socket | None) -> int | None:
    option = getattr(socket, "SO_PEERCRED", None)
    if sock is None or option is None:
        return None
    try:
        return int(struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))[0])
    except OSError:
        return None


def _check_length(path: Path) -> None:
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise ChannelError(f"the socket path {path} is too long for a Unix socket "
                           f"({len(os.fsencode(path))} bytes, at most {MAX_SOCKET_PATH}); "
                           f"set {SOCKET_ENV} to a shorter one")


# -- the window's side: listen ----------------------------------------------------------------------------


class TapConnection:
    """One tap connected to the window: its hello, then :meth:`messages` until its end line or EOF."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, hello: dict[str, Any],
                 pid: int | None) -> None:
        self._reader = reader
        self._writer = writer
        self.hello = hello
        self.peer_pid = pid  #: the tap's pid as the kernel reports it (None where unavailable)
        self.malformed = 0  #: lines that were neither an event nor a control line (skipped)
        self.end: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return str(self.hello.get("name", ""))

    async def messages(self) -> AsyncIterator[Event | dict[str, Any]]:
        """Each event as an :class:`Event`, each control line (``dropped``, ``end``) as a dict; ends after
        ``end`` or when the tap goes away."""
        while True:
            try:
                line = await self._reader.readline()
            except (ValueError, asyncio.LimitOverrunError, ConnectionError):
                return
            if not line:
                return
            if not line.endswith(b"\n"):
                return  # cut off: the tap died in the middle of a line
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise ValueError("not an object")
                if "type" in obj:
                    yield obj
                    if obj["type"] == "end":
                        self.end = obj
                        return
                    continue
                event = event_from_obj(obj)
            except (ValueError, CaptureError, RecursionError):
                self.malformed += 1
                continue
            yield event


Handler = Callable[[TapConnection], Awaitable[None]]


async def json_objects(reader: asyncio.StreamReader) -> AsyncIterator[dict[str, Any]]:
    """Each line of ``reader`` that is a JSON object, in order, until the peer goes away or cuts a line short
    (the links beside the feed: :mod:`inspector.core.tap.breakpoint_link`, :mod:`inspector.core.serve.fault_link`).
    A line that is not a JSON object is skipped: a peer's mistake never ends the link."""
    while True:
        try:
            line = await reader.readline()
        except (ValueError, asyncio.LimitOverrunError, ConnectionError):
            return
        if not line.endswith(b"\n"):
            return
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            yield obj


def send_json_line(writer: asyncio.StreamWriter, obj: dict[str, Any]) -> bool:
    """Write ``obj`` as one line; False when the peer is gone (nothing is raised: a link that broke ends on its
    reader's side)."""
    try:
        writer.write(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")
    except (ConnectionError, RuntimeError, OSError):
        return False
    return True


class TapListener:
    """The listening socket (an :class:`asyncio.Server` underneath): ``close()`` then ``await
    wait_closed()``, or ``async with``. Closing also removes the socket file."""

    def __init__(self, server: asyncio.Server, path: Path, inode: int) -> None:
        self.server = server
        self.path = path
        self._inode = inode
        self.refused = 0  #: connections refused because the peer was another user
        self.connections = 0

    @property
    def sockets(self) -> Any:
        return self.server.sockets

    def is_serving(self) -> bool:
        return self.server.is_serving()

    def close(self) -> None:
        self.server.close()
        with contextlib.suppress(OSError):
            if os.lstat(self.path).st_ino == self._inode:
                os.unlink(self.path)

    async def wait_closed(self) -> None:
        await self.server.wait_closed()

    async def __aenter__(self) -> TapListener:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
        await self.wait_closed()


#: A handler of another kind of connection on the same socket: its reader, writer and hello.
OtherHandler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, dict[str, Any]], Awaitable[None]]


async def listen(path: str | os.PathLike[str] | None, handler: Handler, *,
                 allowed_uid: int | None = None, others: Mapping[str, OtherHandler] | None = None) -> TapListener:
    """Listen for taps on ``path`` (default :func:`default_socket_path`); ``handler`` runs once per
    connected tap, after its hello, and the connection closes when it returns. ``others`` handles connections
    whose hello has another ``type`` (a tap's breakpoint link: :mod:`inspector.core.tap.breakpoint_link`), with
    the same checks.

    The folder is made 0700 and the socket 0600. A stale socket file (nothing listening) is replaced; a live
    one raises ChannelError, as does anything that is not a socket. ``allowed_uid`` (default: ours) is the
    only uid a peer may have, checked with ``SO_PEERCRED`` where the system has it."""
    sock_path = Path(path) if path is not None else default_socket_path()
    _check_length(sock_path)
    ensure_private_dir(sock_path.parent)
    _remove_stale(sock_path)
    uid = os.getuid() if allowed_uid is None else allowed_uid
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        old_umask = os.umask(0o177)  # created 0600: no moment where another user could connect
        try:
            sock.bind(os.fspath(sock_path))
        finally:
            os.umask(old_umask)
        os.chmod(sock_path, 0o600)
        sock.listen(64)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise ChannelError(f"cannot listen on {sock_path}: {exc.strerror or exc}") from None
    listener: TapListener

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raw = writer.get_extra_info("socket")
        try:
            if peer_uid(raw) not in (None, uid):
                listener.refused += 1
                return
            try:
                line = await wait_for(reader.readline(), HELLO_TIMEOUT)
                hello = json.loads(line)
            except (TimeoutError, ValueError, ConnectionError, asyncio.LimitOverrunError):
                return
            if isinstance(hello, dict) and others and hello.get("type") in others:
                await others[hello["type"]](reader, writer, hello)
                return
            if not isinstance(hello, dict) or hello.get("type") != "tap":
                return
            listener.connections += 1
            await handler(TapConnection(reader, writer, hello, peer_pid(raw)))
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()

    server = await asyncio.start_unix_server(accepted, sock=sock, limit=MAX_LINE_BYTES)
    listener = TapListener(server, sock_path, os.lstat(sock_path).st_ino)
    return listener


def _remove_stale(path: Path) -> None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise ChannelError(f"{path} exists and is not a socket; remove it or choose another path")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(os.fspath(path))
    except (ConnectionRefusedError, FileNotFoundError):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # a socket left behind by a window that crashed
        return
    except OSError as exc:
        raise ChannelError(f"{path} cannot be checked: {exc.strerror or exc}") from None
    finally:
        probe.close()
    raise ChannelError(f"another mcp-inspector window already listens on {path}")


# -- the tap's side: TapFeed ------------------------------------------------------------------------------


class _Dropped:
    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


class TapFeed:
    """Streams capture lines to a listening window, never blocking its caller.

    :meth:`send` queues lines (only while connected) and returns at once; a writer task sends them. When
    more than ``max_queued_bytes`` wait, new lines are dropped and counted (``dropped``), and a ``dropped``
    marker takes their place. While no window listens, a connection is attempted every ``retry_interval``
    seconds; the hello then says which ``seq`` comes next.
    """

    def __init__(self, path: Path | None, hello: dict[str, Any], *, max_queued_bytes: int = MAX_QUEUED_BYTES,
                 retry_interval: float = RETRY_INTERVAL, warn: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.hello = {"type": "tap", "protocol": PROTOCOL_VERSION, **hello}
        self.max_queued_bytes = max_queued_bytes
        self.retry_interval = retry_interval
        self.dropped = 0  #: events dropped because the window was too slow
        self.sent = 0  #: lines handed to the socket
        self.connections = 0
        self.next_seq = 1  #: the caller keeps this current: the seq of the next event it will send
        self._warn = warn or (lambda text: print(f"mcp-inspector tap: {text}", file=sys.stderr))
        self._warned: set[str] = set()
        self._queue: collections.deque[str | _Dropped] = collections.deque()
        self._queued = 0
        self._wake = asyncio.Event()
        self._closing = False
        self._writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task[None] | None = None
        self._end_line: str | None = None

    @property
    def connected(self) -> bool:
        return self._writer is not None

    async def start(self) -> None:
        """Try to connect once now (so a listening window sees the session from its first event), then keep
        trying in the background."""
        if self.path is None:
            return
        await self._connect()
        self._task = asyncio.ensure_future(self._run())

    def send(self, lines: list[str]) -> None:
        """Queue capture lines (each ending in a newline) for the window; never waits."""
        if self._writer is None or self._closing:
            return
        size = sum(len(line) for line in lines)
        if self._queued + size > self.max_queued_bytes:
            self.dropped += len(lines)
            tail = self._queue[-1] if self._queue else None
            if not isinstance(tail, _Dropped):
                tail = _Dropped()
                self._queue.append(tail)
            tail.count += len(lines)
            self._wake.set()
            return
        self._queue.append("".join(lines))
        self._queued += size
        self._wake.set()

    async def close(self, exit_code: int | None, timeout: float = CLOSE_TIMEOUT) -> None:
        """Send what is queued and the end line, waiting at most ``timeout`` for a slow window."""
        self._closing = True
        self._end_line = json.dumps({"type": "end", "exit": exit_code, "dropped": self.dropped}) + "\n"
        self._wake.set()
        if self._task is not None:
            try:
                await wait_for(asyncio.shield(self._task), timeout)
            except TimeoutError:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
        self._disconnect()

    # -- inside ---------------------------------------------------------------------------------------------

    async def _connect(self) -> bool:
        assert self.path is not None
        problem = private_dir_problem(self.path)
        if problem is not None:
            self._warn_once(problem + "; not streaming to it")
            return False
        try:
            _check_length(self.path)
            reader, writer = await wait_for(asyncio.open_unix_connection(os.fspath(self.path)), 1.0)
        except (TimeoutError, OSError, ChannelError):
            return False  # no window listens (or it is going away): just record
        uid = peer_uid(writer.get_extra_info("socket"))
        if uid is not None and uid != os.getuid():
            self._warn_once(f"the listener on {self.path} runs as another user (uid {uid}); not streaming to it")
            writer.close()
            return False
        del reader  # the window never writes back
        writer.write((json.dumps({**self.hello, "next_seq": self.next_seq}, ensure_ascii=True) + "\n").encode())
        self._writer = writer
        self.connections += 1
        return True

    def _disconnect(self) -> None:
        writer, self._writer = self._writer, None
        self._queue.clear()
        self._queued = 0
        if writer is not None:
            with contextlib.suppress(OSError, RuntimeError):
                writer.close()

    async def _run(self) -> None:
        while True:
            if self._writer is None:
                if self._closing:
                    return
                if not await self._connect():
                    with contextlib.suppress(asyncio.TimeoutError):
                        await wait_for(self._wake.wait(), self.retry_interval)
                    self._wake.clear()
                continue
            if not self._queue and not (self._closing and self._end_line):
                self._wake.clear()
                await self._wake.wait()
                continue
            chunks: list[str] = []
            while self._queue:
                item = self._queue.popleft()
                if isinstance(item, _Dropped):
                    chunks.append(json.dumps({"type": "dropped", "count": item.count, "total": self.dropped}) + "\n")
                else:
                    chunks.append(item)
            self._queued = 0
            last = self._closing and not self._queue and self._end_line is not None
            if last:
                chunks.append(self._end_line or "")
            try:
                self._writer.write("".join(chunks).encode("utf-8", errors="surrogateescape"))
                self.sent += len(chunks)
                await self._writer.drain()
            except (ConnectionError, OSError, RuntimeError):
                self._disconnect()  # the window went away; try again later (or stop, when closing)
                continue
            if last:
                return

    def _warn_once(self, text: str) -> None:
        if text not in self._warned:
            self._warned.add(text)
            self._warn(text)
