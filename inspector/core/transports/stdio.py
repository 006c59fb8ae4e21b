"""The stdio transport: launch a server as a subprocess and speak newline-delimited JSON-RPC over its pipes.

Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio (and the 2026-07-28
binding, unchanged on the wire). What this adds for a debugger:

* the command is an argument list, never a shell line; the process gets its own process group, so shutdown
  reaches the grandchildren a wrapper script (``npx``, ``uv run``) leaves behind;
* stdout goes through :class:`~inspector.core.wire.framing.LineDecoder`, so every byte ends up in one event;
* stderr is always drained, line by line, so a server that writes megabytes of logs before answering cannot
  deadlock on a full pipe;
* what we write to stdin goes through a decoder too, so the capture holds stdin byte-exactly, raw sends
  included;
* shutdown follows the spec's order with named timeouts: close stdin, wait, SIGTERM the group, wait, SIGKILL
  (:class:`~inspector.core.transports.process_group.ProcessGroup`, shared with the tap).
"""

from __future__ import annotations

import asyncio
import collections
import os
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspector.core import offload
from inspector.core.redaction import redact_argv, redact_env
from inspector.core.transports.base import (
    CannotRun,
    CommandNotFound,
    NoWorkingDirectory,
    Transport,
    TransportClosed,
    TransportError,
    WholeCommandLine,
)
from inspector.core.transports.draining import read_fd, readable, wait_while_busy
from inspector.core.transports.process_group import (
    ProcessGroup,
    process_state,
    signal_name,
)
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Direction, Event, Kind, Lifecycle
from inspector.core.wire.framing import (
    BIG_LINE_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    READING_STOPPED,
    LineDecoder,
    Undecoded,
    decode_big,
    resolve,
)
from inspector.core.wire.lines import TextLineSplitter

#: After closing stdin, how long a server gets to exit by itself (the SDKs use 2 s).
STDIN_CLOSE_GRACE = 2.0
#: Once the server has exited, how long we keep reading pipes that a leftover process may still hold, once they
#: have nothing more to read (inspector/core/transports/draining.py).
PIPE_DRAIN_GRACE = 1.0
#: A write to stdin that makes no progress for this long means the server stopped reading it.
WRITE_STALL_TIMEOUT = 10.0
#: Read size for the pipes: large enough that a flood costs few reads, small enough that decoding one chunk
#: (~600 typical messages) never holds the event loop for long.
READ_CHUNK = 64 * 1024
#: How many recent stderr lines a diagnosis quotes.
STDERR_TAIL_LINES = 5
#: A quoted stderr line keeps only its last this many characters: a server can write megabytes without a
#: newline (a progress bar, a minified stack trace), and the diagnosis must stay one readable sentence.
STDERR_QUOTE_CHARS = 200


def lifecycle(what: str, **data: Any) -> Event:
    return Event(Kind.LIFECYCLE, data={"what": what, **data})


class StdioTransport(Transport):
    """Launches ``argv`` (no shell) with optional ``cwd`` and environment overrides."""

    name = "stdio"

    #: hand the server's batches over with their parse (:class:`~inspector.core.wire.framing.Batch`): set by an
    #: owner that judges the session (the window), so the judge does not parse each message again
    share_parses = False
    #: with ``share_parses``: what to keep of each parse (the decoder's ``keep``; the window's judge keeps only a
    #: verdict for the notifications it checks at once, :meth:`~inspector.core.protocol.judge.ProtocolJudge.verdict`)
    keep_parse: Callable[[Event, Any], Any] | None = None

    def __init__(self, argv: list[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
                 max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, redact: bool = True) -> None:
        super().__init__()
        self.redact = redact  # secrets out of the "spawned" event, which is saved
        if not argv:
            raise TransportError("no command given: put the server command after --")
        self.argv = list(argv)
        self.cwd = cwd
        self.env_overrides = dict(env or {})
        self.max_line_bytes = max_line_bytes
        self.process: asyncio.subprocess.Process | None = None
        self.returncode: int | None = None
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_line_open = False  # the last stderr piece had no newline: the next one continues it
        self.group: ProcessGroup | None = None  #: the server's process group, once it runs
        self._stdin_decoder = LineDecoder(Direction.C2S, max_line_bytes)
        self._readers: list[asyncio.Task[None]] = []
        self._waiter: asyncio.Task[None] | None = None
        self._closed = asyncio.Event()
        self._closing = False
        self._stop_began: float | None = None  #: when :meth:`close` began (the loop's clock)
        self._stdin_closed = False
        self._exit_code: asyncio.Future[int] | None = None
        self._subprocess: asyncio.SubprocessTransport | None = None  #: asyncio's transport of the process

    @property
    def leftovers(self) -> list[int]:
        """Processes of the server's group still running after it exited (helpers it left behind), ended by us."""
        return self.group.leftovers if self.group is not None else []

    @property
    def _signalled(self) -> str | None:
        return self.group.signalled if self.group is not None else None

    def describe(self) -> dict[str, Any]:
        return {
            "transport": "stdio",
            "argv": redact_argv(self.argv) if self.redact else list(self.argv),
            "cwd": self.cwd,
            "env": redact_env(self.env_overrides) if self.redact else dict(self.env_overrides),
            "redacted": self.redact,
        }

    # -- launch ----------------------------------------------------------------------------------------

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.env_overrides)
        return env

    def resolve_executable(self, env: dict[str, str]) -> str:
        """Find the executable the way exec would, so a missing one gets a sentence, not an errno."""
        command = self.argv[0]
        if self.cwd is not None and not Path(self.cwd).is_dir():
            raise NoWorkingDirectory(f"the working directory {self.cwd} does not exist")
        if os.sep in command:
            path = Path(self.cwd or ".", command) if not os.path.isabs(command) else Path(command)
            if not path.exists():
                raise _not_found(command, f"command not found: {command} (no such file)")
            if path.is_dir():
                raise CannotRun(f"{command} is a directory, not a program")
            if not os.access(path, os.X_OK):
                raise CannotRun(f"{command} is not executable (chmod +x {command}?)")
            return command
        search = env.get("PATH", os.defpath)
        found = shutil.which(command, path=search)
        if found is None:
            candidate = next((Path(d, command) for d in search.split(os.pathsep)
                              if d and Path(d, command).is_file()), None)
            if candidate is not None:
                raise CannotRun(f"{candidate} is not executable (chmod +x {candidate}?)")
            raise _not_found(command, f"command not found: {command} (searched PATH: {search})")
        return found

    async def start(self) -> None:
        env = self._environment()
        executable = self.resolve_executable(env)
        loop = asyncio.get_running_loop()
        exit_code: asyncio.Future[int] = loop.create_future()
        self._exit_code = exit_code
        try:
            transport, protocol = await loop.subprocess_exec(
                lambda: _ExitAwareProtocol(loop, exit_code),
                executable, *self.argv[1:],
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                cwd=self.cwd, env=env, start_new_session=True,
            )
            self._subprocess = transport
            self.process = asyncio.subprocess.Process(transport, protocol, loop)
            self.group = ProcessGroup(self.process.pid, lambda what, **data: self.emit(lifecycle(what, **data)))
        except PermissionError:
            raise CannotRun(f"{self.argv[0]} cannot be run: permission denied") from None
        except OSError as exc:
            raise CannotRun(f"{self.argv[0]} cannot be started: {exc.strerror or exc}") from None
        self.emit(lifecycle(
            Lifecycle.SPAWNED, pid=self.process.pid,
            argv=redact_argv(self.argv) if self.redact else self.argv,
            executable=executable, cwd=os.path.abspath(self.cwd or os.getcwd()),
            env=redact_env(self.env_overrides) if self.redact else self.env_overrides,
        ))
        assert self.process.stdout is not None and self.process.stderr is not None
        self._readers = [
            asyncio.ensure_future(self._read_stdout(self.process.stdout)),
            asyncio.ensure_future(self._read_stderr(self.process.stderr)),
        ]
        self._waiter = asyncio.ensure_future(self._wait_exit())

    # -- reading ---------------------------------------------------------------------------------------

    async def _read_stdout(self, stream: asyncio.StreamReader) -> None:
        # with a worker process (the window), big lines are decoded there: the loop never parses 50 MB
        decoder = LineDecoder(Direction.S2C, self.max_line_bytes,
                              defer_bytes=BIG_LINE_BYTES if offload.workers_enabled() else None,
                              share_parses=self.share_parses, keep=self.keep_parse)
        clock = asyncio.get_running_loop().time
        last_read = 0.0
        cancelled = False
        try:
            while chunk := await stream.read(READ_CHUNK):
                last_read = clock()
                events = decoder.feed(chunk)
                if not events:
                    pass
                elif decoder.defer_bytes is None:  # nothing is left undecoded for the worker: emitted as it is
                    self.emit_many(events)
                else:
                    await self._emit_decoded(events)
                # read() returns at once while data is buffered, so a backlog would be decoded in one go;
                # yield between chunks so the window keeps painting during a flood. A short chunk emptied the
                # buffer: the next read waits for data (and so yields) anyway
                if len(chunk) == READ_CHUNK:
                    await asyncio.sleep(0)
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            events = decoder.close(cut_by_stop=self._cut_by_stop(last_read, cancelled))
            if events:  # the end of the stream: what is left is decoded here (a big last line included)
                self.emit_many([resolve(e, decode_big(e.raw, e.eol, e.dir or Direction.S2C))
                                if type(e) is Undecoded else e for e in events])

    def _cut_by_stop(self, last_read: float, cancelled: bool) -> str | None:
        """How our own stop ended stdout while the server was still writing (its bytes kept coming after the stop
        began), if it did: the signal we sent, or :data:`READING_STOPPED` when we stopped reading a pipe the
        group still held. None when the server ended the stream itself: then a cut line is its own doing."""
        if self._stop_began is None or last_read < self._stop_began:
            return None
        if cancelled:
            return READING_STOPPED
        return self._signalled

    async def _emit_decoded(self, events: list[Event]) -> None:
        """Emit a batch in order, decoding its big lines in the worker process first (reading waits meanwhile)."""
        start = 0
        for position, event in enumerate(events):
            if type(event) is Undecoded:
                if position > start:
                    self.emit_many(events[start:position])
                direction = event.dir or Direction.S2C
                try:
                    verdict = await offload.run(decode_big, event.raw, event.eol, direction)
                except asyncio.CancelledError:  # closing: the rest is still recorded, decoded here
                    self.emit_many([resolve(e, decode_big(e.raw, e.eol, direction)) if type(e) is Undecoded else e
                                    for e in events[position:]])
                    raise
                self.emit_many([resolve(event, verdict)])
                start = position + 1
        if start == 0:
            self.emit_many(events)
        elif start < len(events):
            self.emit_many(events[start:])

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        splitter = TextLineSplitter()
        try:
            while chunk := await stream.read(READ_CHUNK):
                self._emit_stderr(splitter.feed(chunk))
        finally:
            self._emit_stderr(splitter.close())

    def _emit_stderr(self, lines: list[tuple[bytes, bytes]]) -> None:
        if not lines:
            return
        first = max(0, len(lines) - STDERR_TAIL_LINES)
        line_open = lines[first - 1][1] == b"" if first else self._stderr_line_open
        for line, eol in lines[first:]:
            # pieces of one line cut by the splitter (no newline between them) are quoted as one line
            text = line.decode("utf-8", errors="replace")
            if line_open and self.stderr_tail:
                text = self.stderr_tail.pop() + text
            if len(text) > STDERR_QUOTE_CHARS:
                text = "…" + text[-STDERR_QUOTE_CHARS:]
            self.stderr_tail.append(text)
            line_open = eol == b""
        self._stderr_line_open = line_open
        self.emit_many([Event(Kind.STDERR, raw=line, dir=Direction.S2C, eol=eol) for line, eol in lines])

    async def _wait_exit(self) -> None:
        assert self.process is not None
        # Not process.wait(): before Python 3.12 it also waits for every pipe to close, which never happens
        # while a grandchild holds stdout.
        assert self._exit_code is not None
        code = await self._exit_code
        self.returncode = code
        # Read what the server wrote before it died; a leftover grandchild may hold the pipes open, so bound it.
        await self._finish_readers(PIPE_DRAIN_GRACE)
        data: dict[str, Any] = {"code": code} if code >= 0 else {"signal": signal_name(-code)}
        if self._signalled:
            data["after"] = self._signalled
        self.emit(lifecycle(Lifecycle.EXITED, pid=self.process.pid, **data))
        self._closed.set()

    async def _finish_readers(self, grace: float) -> None:
        """Read stdout and stderr to their end while they have something to read, then ``grace`` more (a process
        the server left behind may hold them open): inspector/core/transports/draining.py."""
        if not self._readers:
            return
        pending = await wait_while_busy(self._readers, self._pipes_readable, grace)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)

    def _pipes_readable(self) -> bool:
        """Whether stdout or stderr still has something for its reader: bytes (or the end of file) in the pipe,
        or, once asyncio has taken the end of file, the rest in the reader's buffer while it is still busy with
        an earlier batch (a big line decoded in the worker process, a starved loop)."""
        subprocess = self._subprocess
        if subprocess is None:
            return False
        fds = []
        for fd, reader in zip((1, 2), self._readers, strict=False):
            if reader.done():
                continue
            pipe = subprocess.get_pipe_transport(fd)
            if pipe is not None and pipe.is_closing():
                return True  # read to its end by asyncio: what is left is in memory, the reader's to take
            fds.append(read_fd(pipe))
        return readable(fds)

    # -- writing ---------------------------------------------------------------------------------------

    async def send(self, data: bytes, *, raw: bool = False) -> None:
        """Write one message line. Refuses embedded newlines unless ``raw`` (then writes ``data`` as is)."""
        if not raw and (b"\n" in data or b"\r" in data):
            raise TransportError("the message contains a raw newline, which would split it in two on stdio; "
                                 "use raw mode to send it anyway")
        await self._write(data if raw else data + b"\n", None)

    async def send_decoded(self, data: bytes, events: list[Event]) -> None:
        """Write ``data`` as is and record ``events`` for it instead of decoding it again (see
        :meth:`Transport.send_decoded`), when what was written before ended its line (else it is decoded)."""
        await self._write(data, events if self._stdin_decoder.at_line_start and data.endswith(b"\n") else None)

    def can_send_now(self) -> bool:
        process = self.process
        if process is None or process.stdin is None or self._stdin_closed or self.closed \
                or process.returncode is not None or not self._stdin_decoder.at_line_start:
            return False
        pipe = process.stdin.transport
        return not pipe.is_closing() and not pipe.get_write_buffer_size()

    def send_decoded_now(self, data: bytes, events: list[Event]) -> None:
        assert self.process is not None and self.process.stdin is not None and data.endswith(b"\n")
        self.process.stdin.write(data)
        self.emit_many(events)

    async def _write(self, payload: bytes, events: list[Event] | None) -> None:
        """Write ``payload`` to stdin and record it: ``events`` if given, else what the stdin decoder makes of it."""
        process = self.process
        if process is None or process.stdin is None:
            raise TransportClosed("the server is not running")
        if self._stdin_closed:
            raise TransportClosed(self.diagnosis() or "the server's stdin is already closed")
        stdin = process.stdin
        if self.closed or process.returncode is not None or stdin.is_closing():
            raise TransportClosed(await self._exit_diagnosis())
        try:
            stdin.write(payload)
            if events is None:
                events = self._stdin_decoder.feed(payload)
            if events:
                self.emit_many(events)
            # drain() has nothing to wait for when the pipe took everything (nothing buffered, not closing): a
            # load run writes thousands of times a second, and the timeout's timer costs more than the write
            pipe = stdin.transport
            if not pipe.get_write_buffer_size() and not pipe.is_closing():
                return
            # asyncio.timeout checks for a running loop before drain() makes its coroutine (wait_for would leave
            # it never awaited when a task step runs outside the loop, as Qt's event processing in tests can)
            async with asyncio.timeout(WRITE_STALL_TIMEOUT):
                await stdin.drain()
        except TimeoutError:
            raise TransportError(f"the server stopped reading its stdin: {len(payload):,} bytes could not be "
                                 f"written within {WRITE_STALL_TIMEOUT:g} s") from None
        except (BrokenPipeError, ConnectionResetError):
            raise TransportClosed(await self._exit_diagnosis()) from None

    async def _exit_diagnosis(self) -> str:
        """The server is going away: wait (bounded) until its exit and stderr are known, then say why."""
        await self._wait_for(self._closed.wait(), STDIN_CLOSE_GRACE + PIPE_DRAIN_GRACE)
        return self.diagnosis() or "the server closed its stdin but is still running"

    # -- shutdown --------------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def close(self) -> None:
        """Close stdin, wait; SIGTERM the group, wait; SIGKILL the group; leave no process of the group alive."""
        group = self.group
        if group is None or self._closing:
            if self._waiter is not None:
                await asyncio.shield(self._waiter)
            return
        self._closing = True
        self._stop_began = asyncio.get_running_loop().time()
        self._close_stdin()
        await group.stop(self._wait_closed, STDIN_CLOSE_GRACE)
        await group.reap()
        if self._waiter is not None:
            await self._waiter
        if self._subprocess is not None:
            # our ends of the pipes, closed now, on a running loop: a grandchild that still holds the server's
            # stdout keeps asyncio from closing them itself, and its transport, garbage-collected after the loop
            # ended, printed "Event loop is closed" tracebacks
            self._subprocess.close()

    def _close_stdin(self) -> None:
        if self._stdin_closed or self.process is None or self.process.stdin is None:
            return
        self._stdin_closed = True
        for event in self._stdin_decoder.close():
            self.emit(event)  # a raw send without newline shows up as an unterminated line
        try:
            self.process.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.emit(lifecycle(Lifecycle.STDIN_CLOSED))

    async def _wait_closed(self, timeout: float) -> bool:
        return await self._wait_for(self._closed.wait(), timeout)

    @staticmethod
    async def _wait_for(awaitable: Any, timeout: float) -> bool:
        try:
            await wait_for(awaitable, timeout)
            return True
        except TimeoutError:
            return False

    def waiting_detail(self, msg_id: Any) -> str | None:
        process = self.process
        if process is None or self.returncode is not None:
            return None
        if process_state(process.pid) in ("T", "t"):
            return ("the server's process is stopped (SIGSTOP, Ctrl-Z or a debugger) and cannot answer until it "
                    "gets SIGCONT")
        stdin = process.stdin
        waiting = stdin.transport.get_write_buffer_size() if stdin is not None and not self._stdin_closed else 0
        if waiting:
            return (f"the server stopped reading its stdin ({waiting:,} bytes of what mcp-inspector wrote are "
                    "still waiting to go in)")
        return None

    def diagnosis(self, waiting_for: str | None = None) -> str | None:
        if self.returncode is None:
            return None
        if self.returncode >= 0:
            how = f"the server exited with code {self.returncode}"
        else:
            how = f"the server was killed by {signal_name(-self.returncode)}"
        if self._signalled:
            how += f" (after mcp-inspector sent {self._signalled})"
        if waiting_for:
            how += f" before answering {waiting_for}"
        if self.stderr_tail:
            tail = "\n".join("  " + line for line in self.stderr_tail)
            return f"{how}; its last stderr lines:\n{tail}"
        return f"{how} and wrote nothing to stderr"

    def ending(self) -> str:
        code = self.returncode
        if self.process is None:
            text = "the server did not start"
        elif code is None:
            text = "server still running"
        elif code >= 0:
            text = f"server exited with code {code}"
        else:
            text = f"server killed by signal {-code}"
        if self.leftovers:
            processes = "1 process" if len(self.leftovers) == 1 else f"{len(self.leftovers)} processes"
            pids = ", ".join(map(str, self.leftovers))
            text += f"; it left {processes} running in its process group (pid {pids}), ended by mcp-inspector"
        return text


class _ExitAwareProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """The stream protocol asyncio uses, plus a future resolved with the exit code as soon as the process
    exits, whether or not its pipes are still open."""

    def __init__(self, loop: asyncio.AbstractEventLoop, exit_code: asyncio.Future[int]) -> None:
        super().__init__(limit=READ_CHUNK, loop=loop)
        self._exit_code = exit_code

    def process_exited(self) -> None:
        transport = self._transport  # type: ignore[attr-defined]  # asyncio's own attribute; typeshed omits it
        code = transport.get_returncode() if transport is not None else None
        super().process_exited()
        if not self._exit_code.done():
            self._exit_code.set_result(code if code is not None else -1)


def _not_found(command: str, sentence: str) -> CommandNotFound:
    """The error for a program that is not found: :class:`WholeCommandLine` when its name is one."""
    whole = _whole_command_line(command)
    return WholeCommandLine(whole) if whole is not None else CommandNotFound(sentence)


def _whole_command_line(command: str) -> str | None:
    """For a program name that is not found and holds spaces: it is a whole command line given as one word
    (quoted in the shell, or typed into a profile's command); say so, and whether its quotes close."""
    if not any(c.isspace() for c in command.strip()):
        return None
    try:
        shlex.split(command)
    except ValueError as exc:
        return (f"command not found: {command!r} is a whole command line in one word, and it cannot be split "
                f"({exc}: check the quotes); give the program and each argument as separate words")
    return (f"command not found: {command!r} is a whole command line in one word; give the program and each "
            "argument as separate words")
