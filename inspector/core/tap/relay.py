"""``mcp-inspector tap``: a transparent stdio relay that records a real client's session with its server.

A client (Claude Desktop, Cursor, VS Code, Claude Code, ...) launches ``python -m inspector tap --name NAME --
COMMAND ARGS`` in place of ``COMMAND ARGS``. The tap starts the server and relays bytes unchanged in both
directions: no reframing, invalid lines included. The server's stderr goes to the tap's stderr. The client
sees the server's exit status (a death by signal N as ``128 + N``), and EOF on its stdout when the server
closes its own; when the client closes the tap's stdin, the tap closes the server's. With intercept rules
(``--rules``) the relay frames both directions into lines and each line gets its verdict
(:mod:`inspector.core.tap.intercepting`); without them it never looks at a line.

Two processes, so that recording never slows the wire:

* **the relay** (this process, asyncio, no Qt): bytes read from the client's stdin are written to the server's
  stdin at once; bytes from the server's stdout and stderr go to the tap's stdout and stderr at once. The
  same bytes, stamped with the time they were read, are appended to the recorder's spool (one ``writev`` per
  read into an unlinked file; :mod:`inspector.core.tap.spool`).
  Where both ends of a direction are pipes (Linux), the kernel relays it instead
  (:mod:`inspector.core.tap.splice`: ``tee`` to the destination, ``splice`` into the spool): the bytes never
  pass through the relay's memory. Elsewhere the relay reads and writes them itself; the bytes are the same.
  Flow control is the pipes' own: a side that stops reading pauses the reading of the side that feeds it,
  as it would without the tap.
* **the recorder** (forked at start, in its own session so a Ctrl-C or a signal to the tap's process group
  does not cut the capture short): feeds each direction to a :class:`~inspector.core.wire.framing.LineDecoder`
  and stderr to a :class:`~inspector.core.wire.lines.TextLineSplitter`, and passes the events through the
  session's own :class:`~inspector.core.capture.pipeline.EventPipeline` (numbered; ``t`` and ``wall`` from the
  relay; paired, so the capture has latencies; saved to the capture), which streams them to a listening window
  (:class:`~inspector.core.tap.channel.TapFeed`: a bounded queue; a slow or absent window only loses
  *live* events, counted; the capture gets everything).

The recorder may fall behind during a flood (it runs at the lowest priority); the spool holds the backlog on
disk, so the relay keeps the wire's pace, and only beyond :data:`~inspector.core.tap.spool.DEFAULT_BACKLOG`
waits for the recorder (the capture must not lose bytes, and disk use must stay bounded). When the server is
gone, the relay closes its stdout, waits (bounded) for the recorder to finish
and exits; if the tap is killed, the recorder still finishes what it was given.

Shutdown: the server runs in its own process group (as with the stdio transport,
:mod:`inspector.core.transports.stdio`). When the client closes the tap's stdin, the tap closes the server's,
and that is all: a client may close its stdin and still read the answers, and the server may take its time,
as it could without the tap. When the client is gone (its stdin at EOF *and* its end of the tap's stdout
closed: it died, or left without waiting), the stdio transport's rules apply: the server gets
:data:`STDIN_CLOSE_GRACE` to exit, then SIGTERM to its group, then SIGKILL. SIGTERM, SIGINT and SIGHUP sent to
the tap (how clients stop a server that does not leave on EOF) are forwarded to the server's group, with
SIGKILL after :data:`SIGTERM_GRACE`. Members of the group left after the server exits get SIGTERM, then
SIGKILL. All of it is :class:`~inspector.core.transports.process_group.ProcessGroup`'s, as for the stdio
transport: every signal but SIGKILL is followed by SIGCONT, so a stopped server can act on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.core.capture.writer import make_header
from inspector.core.intercept.transport import Pauser
from inspector.core.redaction import redact_argv
from inspector.core.tap import splice
from inspector.core.tap.breakpoint_link import BreakpointLink
from inspector.core.tap.channel import default_socket_path
from inspector.core.tap.intercepting import TapIntercept
from inspector.core.tap.options import (
    C2S,
    C2S_EOF,
    END,
    EXIT_CANNOT_RUN,
    EXIT_NOT_FOUND,
    LIFECYCLE,
    NOTE,
    S2C,
    S2C_EOF,
    STDERR,
    STDERR_EOF,
    StartFailed,
    TapOptions,
    exit_status,
)
from inspector.core.tap.recorder import capture_destination, fork_recorder, say
from inspector.core.tap.spool import Spool, SpoolWriter, waker
from inspector.core.tap.streams import Fd as _Fd
from inspector.core.tap.streams import Sink as _Sink
from inspector.core.tap.streams import Source as _Source
from inspector.core.tap.streams import enlarge_pipe as _enlarge_pipe
from inspector.core.tap.streams import pipe_like as _pipe_like
from inspector.core.tap.streams import read_fd_of as _read_fd
from inspector.core.tasks import Tasks
from inspector.core.transports.base import CannotRun, TransportError
from inspector.core.transports.draining import readable, wait_while_busy
from inspector.core.transports.process_group import (
    SIGTERM_GRACE,
    ProcessGroup,
    signal_name,
)
from inspector.core.transports.stdio import (
    PIPE_DRAIN_GRACE,
    STDIN_CLOSE_GRACE,
    StdioTransport,
)
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Lifecycle

if TYPE_CHECKING:
    from inspector.core.tap.reloading import TapReload

#: After the server is gone, how long the relay waits for the client to take the rest of stdout.
STDOUT_FLUSH_TIMEOUT = 10.0
#: After the server is gone, how long the relay waits for the recorder to finish the capture.
RECORDER_FINISH_TIMEOUT = 30.0
#: Signals forwarded to the server's process group.
FORWARDED_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name))


class _ClientStdin(asyncio.Protocol):
    def __init__(self, relay: Relay) -> None:
        self.relay = relay

    def data_received(self, data: bytes) -> None:
        self.relay.c2s(data)

    def eof_received(self) -> bool:
        self.relay.client_eof()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.relay.client_eof()


class _ServerStdin(asyncio.Protocol):
    """The server's stdin when it is the relay's own pipe (zero-copy path): asyncio watches it for the server
    closing its end, as it does for the subprocess pipes."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay

    def connection_lost(self, exc: Exception | None) -> None:
        splicer = self.relay.client_in.transport
        if isinstance(splicer, splice.PipeSplicer):
            splicer.detach()  # before asyncio closes the descriptor
        self.relay.pipe_closed(0, exc)


class _ServerProtocol(asyncio.SubprocessProtocol):
    def __init__(self, relay: Relay) -> None:
        self.relay = relay

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # before subprocess_exec returns: a server that exits at once is reported before that
        self.relay.process = transport  # type: ignore[assignment]  # subprocess_exec passes a SubprocessTransport
        self.relay.started(transport.get_pid())  # type: ignore[attr-defined]  # (a SubprocessTransport)

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.relay.s2c(data)
        else:
            self.relay.stderr(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.relay.pipe_closed(fd, exc)

    def pause_writing(self) -> None:  # the server's stdin is full: stop reading the client's stdin
        self.relay.client_in.pause("server-stdin")

    def resume_writing(self) -> None:
        self.relay.client_in.resume("server-stdin")

    def process_exited(self) -> None:
        self.relay.process_exited()


class Relay:
    """One tap: the server process, the client's three streams, the link to the recorder."""

    def __init__(self, options: TapOptions, spool: Spool | None, t0: float, pauser: Pauser | None = None,
                 link: BreakpointLink | None = None) -> None:
        self.options = options
        self.loop = asyncio.get_running_loop()
        self.client_in = _Source()
        self.server_out = _Source()
        self.server_err = _Source()
        self.client_out = _Sink(self.server_out, "client-stdout")
        self.client_err = _Sink(self.server_err, "client-stderr")
        self.link: SpoolWriter | _NoRecorder = (
            SpoolWriter(spool, t0, self._pause_all, self._resume_all, say) if spool is not None else _NoRecorder())
        self.process: asyncio.SubprocessTransport | None = None
        self.pid: int | None = None
        self.group: ProcessGroup | None = None  #: the server's process group, once it runs
        self.server_stdin: asyncio.WriteTransport | None = None
        self.exited: asyncio.Future[int] = self.loop.create_future()
        self.stdout_done: asyncio.Future[None] = self.loop.create_future()
        self.stderr_done: asyncio.Future[None] = self.loop.create_future()
        self.stop_waiting = asyncio.Event()  # a signal while the tap winds down: exit now
        self._client_eof = False
        self._closing_stdin = False
        self._escalating = False
        self._tasks = Tasks()
        self._in_fd: int | None = None
        self._out_fd: int | None = None
        self._splice_in = False  # client stdin -> server stdin by the kernel
        self._splice_out = False  # server stdout -> client stdout by the kernel
        self._stdin_w: int | None = None  # the relay's end of the server's stdin, on the zero-copy path
        #: intercept rules (``--rules``, a window's breakpoints over ``link``): both directions framed into lines
        #: (inspector/core/tap/intercepting.py)
        self.intercept = TapIntercept.on_relay(self, options.rules, t0, pauser, link) \
            if options.rules or link is not None else None
        #: reload on save (``--watch``): both directions framed into lines (inspector/core/tap/reloading.py)
        self.reload: TapReload | None = None
        if options.watch:
            from inspector.core.tap.reloading import TapReload  # watchfiles (19 ms to import) only for --watch

            self.reload = TapReload(self, options.watch, options.watch_ignore)

    # -- the hot path ------------------------------------------------------------------------------------

    def c2s(self, data: bytes) -> None:
        if self.reload is not None:
            self.reload.c2s(data)
            return
        self.past_reload_c2s(data)

    def past_reload_c2s(self, data: bytes) -> None:
        """The client's bytes on to the server past reload on save (which sends what it let through here): through
        the intercept rules when there are some."""
        if self.intercept is not None:
            self.intercept.c2s.feed(data)
            return
        stdin = self.server_stdin
        if stdin is not None:
            stdin.write(data)
        self.link.send(C2S, data)

    def s2c(self, data: bytes) -> None:
        if self.reload is not None:
            self.reload.s2c(data)
            return
        self.past_reload_s2c(data)

    def past_reload_s2c(self, data: bytes) -> None:
        """The server's bytes on to the client past reload on save, as :meth:`past_reload_c2s`."""
        if self.intercept is not None:
            self.intercept.s2c.feed(data)
            return
        self.client_out.write(data)
        self.link.send(S2C, data)

    def stderr(self, data: bytes) -> None:
        self.client_err.write(data)
        self.link.send(STDERR, data)

    # -- events ------------------------------------------------------------------------------------------

    def client_eof(self) -> None:
        if self._client_eof:
            return
        self._client_eof = True
        if self.reload is not None and self.reload.hold_eof(self._client_ended):
            return  # the server restarts: its stdin is closed once the restart is done
        self._client_ended()

    def _client_ended(self) -> None:
        if self.intercept is not None:
            self.intercept.c2s.end()
        self.link.send(C2S_EOF)
        if self.process is not None and not self.exited.done():
            self._close_server_stdin()
            if self.client_out.broken:
                self._client_gone()

    def pipe_closed(self, fd: int, exc: Exception | None) -> None:
        if fd == 0:
            self.server_stdin = None
            if not self._closing_stdin and not self._client_eof:
                # the server closed its stdin (or died): the client's writes should fail as they would directly
                self._stop_client_stdin()
        elif fd == 1:
            if self.intercept is not None:
                self.intercept.s2c.end()
            self.link.send(S2C_EOF)
            # the client sees EOF on its stdout when the server closes its own (after any message still held)
            if self.intercept is None or not self.intercept.s2c.after_held(self.client_out.close):
                self.client_out.close()
            if not self.stdout_done.done():
                self.stdout_done.set_result(None)
        elif fd == 2:
            self.link.send(STDERR_EOF)
            if not self.stderr_done.done():
                self.stderr_done.set_result(None)

    def started(self, pid: int) -> None:
        if self.group is None:
            self.pid = pid
            self.group = ProcessGroup(pid, self.lifecycle)

    def process_exited(self) -> None:
        if self.process is not None and not self.exited.done():
            code = self.process.get_returncode()
            self.exited.set_result(code if code is not None else -1)

    def lifecycle(self, what: str, **data: Any) -> None:
        self._send_json(LIFECYCLE, {"what": what, **data})

    def note(self, text: str, **data: Any) -> None:
        self._send_json(NOTE, {"text": text, **data})

    def _send_json(self, tag: int, obj: dict[str, Any]) -> None:
        self.link.send(tag, json.dumps(obj, ensure_ascii=True).encode("ascii"))

    def _pause_all(self) -> None:
        for source in (self.client_in, self.server_out, self.server_err):
            source.pause("recorder")

    def _resume_all(self) -> None:
        for source in (self.client_in, self.server_out, self.server_err):
            source.resume("recorder")

    # -- the run -----------------------------------------------------------------------------------------

    async def run(self, in_fd: int | None, out_fd: int | None, err_fd: int | None) -> int:
        for sink, fd in ((self.client_out, out_fd), (self.client_err, err_fd)):
            if fd is not None:
                await sink.open(fd)
        self.client_out.on_broken = self._client_stopped_reading
        self._out_fd = out_fd
        if splice.available() and self.intercept is None and self.reload is None:
            self._splice_in = splice.is_pipe(in_fd)
            self._splice_out = splice.is_pipe(out_fd) and self.client_out.transport is not None
        try:
            code = await self.start_server()
        except StartFailed as failure:
            say(failure.sentence)
            self.note(f"the server could not be started: {failure.sentence}", failure=True)
            self._send_json(END, {"exit": failure.status})
            self.client_out.close()
            return failure.status
        if code is None:
            await self._read_client(in_fd)
            code = await self._wind_down()
        return code

    def reset_stdin_state(self) -> None:
        """A new server is about to start (reload): its stdin is not being closed."""
        self._closing_stdin = self._escalating = False

    async def start_server(self) -> int | None:
        argv = self.options.argv
        try:
            # the stdio transport's own resolution, so a missing command gets the same sentence
            executable = StdioTransport(argv).resolve_executable(dict(os.environ))
        except TransportError as exc:
            status = EXIT_CANNOT_RUN if isinstance(exc, CannotRun) else EXIT_NOT_FOUND
            raise StartFailed(str(exc), status) from None
        # the zero-copy path gives the server pipes of the relay's own (asyncio's would read them itself)
        stdin_pipe = os.pipe2(os.O_CLOEXEC) if self._splice_in else None
        stdout_pipe = os.pipe2(os.O_CLOEXEC) if self._splice_out else None
        try:
            process, _ = await self.loop.subprocess_exec(
                lambda: _ServerProtocol(self), executable, *argv[1:],
                stdin=stdin_pipe[0] if stdin_pipe else asyncio.subprocess.PIPE,
                stdout=stdout_pipe[1] if stdout_pipe else asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except PermissionError:
            _close_fds(stdin_pipe, stdout_pipe)
            raise StartFailed(f"{argv[0]} cannot be run: permission denied", EXIT_CANNOT_RUN) from None
        except OSError as exc:
            _close_fds(stdin_pipe, stdout_pipe)
            raise StartFailed(f"{argv[0]} cannot be started: {exc.strerror or exc}", EXIT_CANNOT_RUN) from None
        _close_fds(stdin_pipe and stdin_pipe[:1], stdout_pipe and stdout_pipe[1:])  # the server's ends
        self.process = process
        self.started(process.get_pid())
        self.server_stdin = process.get_pipe_transport(0)  # type: ignore[assignment]  # stdin's is a WriteTransport
        self.server_out.transport = process.get_pipe_transport(1)  # type: ignore[assignment]  # a ReadTransport
        for fd in (0, 1):
            pipe = process.get_pipe_transport(fd)
            if pipe is not None:
                _enlarge_pipe(pipe.get_extra_info("pipe"))
        self.server_err.transport = process.get_pipe_transport(2)  # type: ignore[assignment]  # a ReadTransport
        if stdin_pipe is not None:
            self._stdin_w = stdin_pipe[1]
            _enlarge_pipe(self._stdin_w)
            stdin, _ = await self.loop.connect_write_pipe(lambda: _ServerStdin(self), _Fd(self._stdin_w))
            self.server_stdin = stdin
        if stdout_pipe is not None and self._out_fd is not None:
            _enlarge_pipe(stdout_pipe[0])
            splicer = splice.PipeSplicer(stdout_pipe[0], self._out_fd, self.link, S2C, self.server_out,
                                         "client-stdout", lambda: self.pipe_closed(1, None))
            self.server_out.transport = splicer
            self.client_out.feeder = splicer
            splicer.start()
        # pauses requested before the transports existed
        for source in (self.server_out, self.server_err):
            if source.reasons and source.transport is not None:
                source.transport.pause_reading()
        for sig in FORWARDED_SIGNALS:  # before the capture says the server runs: a signal from then on is forwarded
            with contextlib.suppress(ValueError, OSError, RuntimeError, NotImplementedError):
                self.loop.add_signal_handler(sig, self._forward, sig)
        zero_copy = [name for name, spliced in (("stdin", self._splice_in), ("stdout", self._splice_out)) if spliced]
        self.lifecycle(Lifecycle.SPAWNED, pid=self.pid, argv=redact_argv(argv) if self.options.redact else argv,
                       executable=executable, cwd=os.getcwd(), env={}, via="tap", zero_copy=zero_copy)
        return None

    async def _read_client(self, in_fd: int | None) -> None:
        self._in_fd = in_fd
        if in_fd is None:
            self.client_eof()
        elif self._stdin_w is not None:
            splicer = splice.PipeSplicer(in_fd, self._stdin_w, self.link, C2S, self.client_in, "server-stdin",
                                         self.client_eof)
            self.client_in.transport = splicer
            if self.client_in.reasons:
                splicer.pause_reading()
            splicer.start()
        elif _pipe_like(in_fd):
            transport, _ = await self.loop.connect_read_pipe(lambda: _ClientStdin(self), _Fd(in_fd))
            self.client_in.transport = transport
            if self.client_in.reasons:
                transport.pause_reading()
        else:
            self._tasks.spawn(self._read_file(in_fd), "reading the client's input")

    async def _read_file(self, fd: int) -> None:
        """Stdin is a regular file (``tap < session.jsonl``): read it in chunks, honouring the pauses."""
        try:
            while not self._client_eof:
                await self.client_in.unpaused.wait()
                data = os.read(fd, 256 * 1024)
                if not data:
                    break
                self.c2s(data)
                await asyncio.sleep(0)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)
            self.client_eof()

    def _stop_client_stdin(self) -> None:
        transport = self.client_in.transport
        if transport is not None:
            transport.close()
        self._client_eof = True

    def _client_stopped_reading(self) -> None:
        """The client closed its end of our stdout: let the server's writes fail too, as they would directly."""
        self.note("the client stopped reading the tap's stdout; the server's stdout is closed as well")
        transport = self.server_out.transport
        if transport is not None:
            transport.close()
        if self._client_eof:
            self._client_gone()

    def _close_server_stdin(self) -> None:
        """The client closed its stdin: close the server's (after what is still buffered). Nothing more: a
        client may close its stdin and keep reading (``tap < requests.jsonl | consumer``)."""
        if self.intercept is not None and (self.exited.done()
                                           or self.intercept.c2s.after_held(self._close_server_stdin)):
            return  # messages still held go first (when the server is gone, there is nothing to close)
        self._closing_stdin = True
        if self.server_stdin is not None:
            self.server_stdin.close()
        self.lifecycle(Lifecycle.STDIN_CLOSED, by="client")

    def _client_gone(self) -> None:
        """Both ends of the client are closed: it died or left without waiting. The stdio transport's rules
        then: the server has :data:`STDIN_CLOSE_GRACE` to exit after its stdin closed, then SIGTERM to its
        group, then SIGKILL."""
        if self._escalating or self.process is None or self.exited.done():
            return
        self._escalating = True
        self.note("the client is gone (its stdin and stdout are closed)")
        self._tasks.spawn(self._escalate(), "stopping the server")

    async def _escalate(self) -> None:
        assert self.group is not None
        await self.group.stop(self._wait_exit, STDIN_CLOSE_GRACE)

    def _forward(self, sig: int) -> None:
        """A signal to the tap goes to the server's group, as if the client had sent it to the server."""
        self.stop_waiting.set()
        if self.reload is not None and self.reload.signalled(sig):
            return  # no server runs (a reload failed): the tap ends
        if self.group is None or self.exited.done():
            return
        self.group.send(signal.Signals(sig), forwarded=True)
        self._tasks.spawn(self.group.kill_after(self._wait_exit, SIGTERM_GRACE), "stopping the server")

    async def _wait_exit(self, timeout: float) -> bool:
        try:
            await wait_for(asyncio.shield(self.exited), timeout)
            return True
        except TimeoutError:
            return False

    async def _wind_down(self) -> int:
        returncode = await self.exited
        assert self.group is not None
        self.link.unbounded()
        # what the server wrote before it died; a leftover grandchild may hold the pipes, so bounded
        await self._drain()
        data: dict[str, Any] = {"code": returncode} if returncode >= 0 else {"signal": signal_name(-returncode)}
        if self.group.signalled:
            data["after"] = self.group.signalled
        self.lifecycle(Lifecycle.EXITED, pid=self.group.pgid, **data)
        await self.group.reap()
        await self._drain()
        if self.intercept is not None:
            await self.intercept.settle(self.stop_waiting, STDOUT_FLUSH_TIMEOUT)
        if self.process is not None:
            self.process.close()  # closes pipes a process outside the group may still hold
        if isinstance(self.server_out.transport, splice.PipeSplicer):
            self.server_out.transport.close()  # the relay's own pipe: the same
        if not self.stdout_done.done():
            self.client_out.close()
        self.client_err.close()  # our stderr stays open for our own sentences; this closes the relay's copy
        await asyncio.wait([self.client_out.closed], timeout=STDOUT_FLUSH_TIMEOUT)
        if not self.client_out.closed.done():
            self.client_out.abort()  # the client does not read its stdout: no point waiting longer
        # some clients never read stderr: give the server's last lines a moment, not more
        await asyncio.wait([self.client_err.closed], timeout=PIPE_DRAIN_GRACE)
        status = exit_status(returncode)
        self._send_json(END, {"exit": status})
        self._tasks.cancel_all()
        return status

    async def _drain(self) -> None:
        """Wait for EOF on the server's stdout and stderr while they have something to read or a slow client
        holds them back, then :data:`PIPE_DRAIN_GRACE` more; :data:`STDOUT_FLUSH_TIMEOUT` at most
        (inspector/core/transports/draining.py)."""
        await wait_while_busy((self.stdout_done, self.stderr_done), self._server_busy, PIPE_DRAIN_GRACE,
                              STDOUT_FLUSH_TIMEOUT)

    def _server_busy(self) -> bool:
        """The server's stdout or stderr has something still to read, or is paused for a slow client."""
        if self.server_out.reasons or self.server_err.reasons:
            return True
        fds = [-1 if done.done() else _read_fd(source.transport)
               for source, done in ((self.server_out, self.stdout_done), (self.server_err, self.stderr_done))]
        return readable(fds)

    async def _until(self, future: asyncio.Future[Any], timeout: float) -> None:
        stop = asyncio.ensure_future(self.stop_waiting.wait())
        try:
            await asyncio.wait([future, stop], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()

    async def finish(self, done_fd: int | None) -> None:
        """Hand the recorder the end and wait (bounded; a signal cuts it short) until the capture is complete."""
        if self.reload is not None:
            self.reload.close()
        self.link.close()
        if done_fd is not None:
            finished: asyncio.Future[None] = self.loop.create_future()
            self.loop.add_reader(done_fd, waker(finished))
            try:
                await self._until(finished, RECORDER_FINISH_TIMEOUT)
            finally:
                self.loop.remove_reader(done_fd)
        for sig in FORWARDED_SIGNALS:
            with contextlib.suppress(ValueError, RuntimeError):
                self.loop.remove_signal_handler(sig)


class _NoRecorder:
    """The link when the recorder could not be started: the relay works the same, recording nothing."""

    recording = False

    def send_spliced(self, tag: int, src: int, size: int) -> None:
        pass

    def send(self, tag: int, data: bytes | memoryview = b"") -> None:
        pass

    def unbounded(self) -> None:
        pass

    def close(self) -> None:
        pass


def _close_fds(*groups: tuple[int, ...] | None) -> None:
    for group in groups:
        for fd in group or ():
            with contextlib.suppress(OSError):
                os.close(fd)


def _take_fd(fd: int) -> int | None:
    """A private duplicate of one of our standard streams, the original pointed at /dev/null: nothing but
    the relay can write to the client's stdout (no stray print), and closing the duplicate really closes
    the pipe."""
    try:
        dup = os.dup(fd)
    except OSError:
        return None  # not open: the client gave us nothing there
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, fd)
    os.close(devnull)
    return dup


def run_tap(options: TapOptions) -> int:
    """Run one tap to the end; returns the exit status for the client (see the module docstring)."""
    if not options.argv:
        raise ValueError("no server command")
    t0 = time.monotonic()
    name = options.display_name
    target = {"transport": "stdio", "argv": redact_argv(options.argv) if options.redact else list(options.argv),
              "cwd": os.getcwd(), "env": {}, "redacted": options.redact}
    extra = dict(options.extra_header)
    if options.rules:
        extra["intercept_rules"] = [rule.to_json() for rule in options.rules.rules]
    header = make_header(target, tap={"name": name, "pid": os.getpid(), "client_pid": os.getppid()}, **extra)
    capture_path, exclusive = capture_destination(options.capture, name)
    socket_path = (options.socket or default_socket_path()) if options.live else None
    hello = {"name": name, "pid": os.getpid(), "target": target}
    recorder = fork_recorder(capture_path, exclusive, header, hello, socket_path, options.max_message,
                             otlp_endpoint=options.otlp_endpoint)
    # remember the blocking mode of the client's descriptions: asyncio makes them non-blocking, and a
    # terminal shares its description with the shell
    blocking = {}
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            blocking[fd] = os.get_blocking(fd)
    in_fd = _take_fd(0)
    out_fd = _take_fd(1)
    try:
        err_fd = os.dup(2)
    except OSError:
        err_fd = None
    try:
        return asyncio.run(_main(options, recorder, t0, in_fd, out_fd, err_fd, (socket_path, hello)))
    finally:
        with contextlib.suppress(OSError):
            if 2 in blocking:
                os.set_blocking(2, blocking[2])
        for taken, original in ((in_fd, blocking.get(0)), (out_fd, blocking.get(1))):
            if taken is not None and original is not None:
                with contextlib.suppress(OSError):
                    os.set_blocking(taken, original)
        if recorder is not None:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(recorder[0], os.WNOHANG)


async def _main(options: TapOptions, recorder: tuple[int, Spool, int] | None, t0: float, in_fd: int | None,
                out_fd: int | None, err_fd: int | None, window: tuple[Path | None, dict[str, Any]]) -> int:
    link = await BreakpointLink.open(window[0], window[1], options.rules, say) if window[0] is not None else None
    relay = Relay(options, recorder[1] if recorder else None, t0, link=link)
    try:
        status = await relay.run(in_fd, out_fd, err_fd)
    finally:
        await relay.finish(recorder[2] if recorder else None)
        if link is not None:
            await link.close()
    return status
