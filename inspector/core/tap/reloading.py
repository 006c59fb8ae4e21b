"""Reload on save in the stdio tap (``tap --watch PATH``): a change under a watched path restarts the server
behind a client that keeps its session.

With ``--watch`` the relay frames both directions into lines (as with ``--rules``; no splice) and hands them to
:class:`TapReload`, which watches what each side says (:class:`~inspector.core.protocol.reload.ClientSession`)
and passes the lines on (to the intercept rules first, when there are some). A debounced change
(:class:`~inspector.core.watching.Watcher`) runs :meth:`TapReload.reload`:

1. the capture gets a ``reloading`` lifecycle event naming the changed files; from now on the client's lines wait
   in a queue;
2. the old server (still the old code) is asked for its tools, prompts and resources (the kinds its answer to the
   client's handshake declared), with request ids of the inspector's own; its answers never reach the client;
3. it is stopped while the new one starts: its stdin closed, then :data:`RELOAD_STOP_GRACE`, SIGTERM, SIGKILL to
   its process group (:class:`~inspector.core.transports.process_group.ProcessGroup`), recorded as its ``exited``
   event with ``"reload": true``;
4. the new server is started as the first was (a second ``spawned`` event), told the client's handshake again
   (its ``initialize`` and ``notifications/initialized``, or its ``server/discover``), whose answer is swallowed,
   and asked for the same lists;
5. the client gets ``notifications/<kind>/list_changed`` for each kind whose list differs (nothing if none
   does), then the requests the old server had not answered go to the new one, then the queued lines.

A new server that exits, or does not answer the handshake within :data:`RELOAD_START_TIMEOUT`, fails the
reload: the requests it owed and every request after are answered with a JSON-RPC error (one sentence, with its
exit status), the tap says so on its stderr (the server's own stderr went there as always), and the next change
tries again. The client's session stays up; its EOF or a signal then ends the tap with the failed server's status.

The inspector's own requests and the answers swallowed are recorded as they crossed the wire (ids start with
:data:`~inspector.core.protocol.reload.ID_PREFIX`), each batch introduced by a note saying the client never
sees them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.core.intercept.records import Record
from inspector.core.protocol.reload import (
    ID_PREFIX,
    ClientSession,
    Items,
    Listing,
    capabilities,
    changed_kinds,
    declaring_list_changed,
    dump,
    error_answer,
    own_id,
    parse,
)
from inspector.core.tap.intercepting import pack_record
from inspector.core.tap.options import C2S, INTERCEPTED, S2C, StartFailed
from inspector.core.tap.recorder import say
from inspector.core.tasks import Tasks
from inspector.core.transports.process_group import ProcessGroup, kill_group
from inspector.core.waiting import wait_for
from inspector.core.watching import Watcher
from inspector.core.wire.events import Lifecycle
from inspector.core.wire.intercepted import CHANGED, ORIGINAL, RELOAD, mark

if TYPE_CHECKING:
    from inspector.core.tap.relay import Relay

#: How long the old server has to leave after its stdin is closed before SIGTERM (the SDKs' servers leave on EOF
#: at once; the stdio transport's own grace is longer because nothing waits on it).
RELOAD_STOP_GRACE = 1.0
#: How long a new server has to answer the replayed handshake before the reload counts as failed.
RELOAD_START_TIMEOUT = 10.0
#: How long a server has to answer the inspector's list requests (all pages) before those kinds count as unknown.
LIST_TIMEOUT = 5.0
#: How long a new server that exited has for its last stderr lines to be read before the tap says it failed.
STDERR_DRAIN_TIMEOUT = 1.0

#: How much of a failed server's stderr is kept for its diagnosis (the tap's stderr has all of it).
STDERR_TAIL = 8192

LIVE, RESTARTING, DOWN = "live", "restarting", "down"


class Lines:
    """Cuts one direction's bytes into lines (each with its newline); a line longer than ``limit`` goes on as it
    comes, unread, until its newline. A cut line's pieces are kept apart and joined once, at its newline: a long
    line that comes in many chunks is copied once, not once a chunk."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.through = False
        self._pieces: list[bytes] = []
        self._size = 0

    def feed(self, data: bytes) -> tuple[bytes, list[bytes], bytes]:
        """(the end of an over-long line passing through, the complete lines after it, the start of an over-long
        line after them), to be passed on in this order."""
        head = b""
        if self.through:
            nl = data.find(b"\n")
            if nl < 0:
                return data, [], b""
            head, data, self.through = data[:nl + 1], data[nl + 1:], False
        out: list[bytes] = []
        if self._pieces:
            nl = data.find(b"\n")
            if nl < 0:
                return head, [], self._hold(data)
            self._pieces.append(data[:nl + 1])
            out.append(self.end())
            data = data[nl + 1:]
        lines = data.split(b"\n")
        rest = lines.pop()
        out += [line + b"\n" for line in lines]
        return head, out, self._hold(rest) if rest else b""

    def _hold(self, piece: bytes) -> bytes:
        """Keep ``piece`` of the cut line: b"", or the whole line so far once it is longer than the limit (then
        it goes on, and the rest of it passes through)."""
        self._pieces.append(piece)
        self._size += len(piece)
        if self._size <= self.limit:
            return b""
        self.through = True
        return self.end()

    def end(self) -> bytes:
        """What is held of a cut line (b"": nothing), given up."""
        rest = b"".join(self._pieces)
        self._pieces.clear()
        self._size = 0
        return rest


class _Stand:
    """Stands in for the relay as a server process's protocol target (``_ServerProtocol.relay``) while that
    process is not the relay's own: the old one being retired, or a new one until its handshake is answered.
    Its stdout is read as the relay's (``forwarding``) or only recorded; its exit and its pipes' ends are kept
    here, so the relay's session does not end with them."""

    def __init__(self, relay: Relay, forwarding: bool) -> None:
        self.relay = relay
        self.forwarding = forwarding
        self.client_in = _NoPause()
        self.exited: asyncio.Future[int] = relay.loop.create_future()
        self.stderr_done: asyncio.Future[None] = relay.loop.create_future()
        self.stderr_tail = bytearray()  # its last words, for what the tap says when it failed to start
        self.closed: list[tuple[int, Exception | None]] = []
        self.process: Any = None
        self.lines = Lines(relay.options.max_message)
        self.noted = False

    def s2c(self, data: bytes) -> None:
        if self.forwarding:
            self.relay.s2c(data)
            return
        # recorded, never passed on; whole lines only, as a new server's lines may come in between
        _head, lines, _tail = self.lines.feed(data)
        if lines:
            if not self.noted:
                self.noted = True
                self.relay.note("what the old server says while it leaves is recorded; the client does not get it "
                                "(reload)")
            self.relay.link.send(S2C, b"".join(lines))

    def stderr(self, data: bytes) -> None:
        self.relay.stderr(data)
        self.stderr_tail += data
        del self.stderr_tail[:-STDERR_TAIL]

    def pipe_closed(self, fd: int, exc: Exception | None) -> None:
        self.closed.append((fd, exc))
        if fd == 2 and not self.stderr_done.done():
            self.stderr_done.set_result(None)

    def started(self, pid: int) -> None:
        pass

    def process_exited(self) -> None:
        code = self.process.get_returncode() if self.process is not None else None
        if not self.exited.done():
            self.exited.set_result(code if code is not None else -1)

    async def wait_exit(self, timeout: float) -> bool:
        try:
            await wait_for(asyncio.shield(self.exited), timeout)
            return True
        except TimeoutError:
            return False


class _NoPause:
    def pause(self, reason: str) -> None:
        pass

    def resume(self, reason: str) -> None:
        pass


class _ReloadFailed(Exception):
    def __init__(self, why: str, code: int | None, stderr: list[str] | None = None) -> None:
        super().__init__(why)
        self.why = why
        self.code = code
        self.stderr = stderr or []


class TapReload:
    """Reload on save on one relay (see the module): the lines both ways, and the restarts."""

    def __init__(self, relay: Relay, paths: list[Path], ignore: list[str]) -> None:
        self.relay = relay
        self.session = ClientSession()
        self.state = LIVE
        self.c2s_lines = Lines(relay.options.max_message)
        self.s2c_lines = Lines(relay.options.max_message)
        self.queue: list[bytes] = []  # the client's lines while the server restarts
        self.lists: dict[str, Items] | None = None  # the last lists a server gave, for a reload whose old is down
        self.changes: list[str] = []  # changes seen while a reload runs: the next reload's
        self.waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.failure: tuple[str, int] | None = None  # (sentence, raw return code) while DOWN
        self.eof_then: Callable[[], None] | None = None  # the client's EOF, held until the restart is done
        self.reloads = 0
        self.client_ended = False  # the client's stdin ended: the session is ending, no more reloads
        self._ids = itertools.count(1)
        self._tasks = Tasks(say)
        self._reload_task: asyncio.Task[Any] | None = None
        self._stand: _Stand | None = None  # the stand-in of the process being retired or started
        self._last_group: ProcessGroup | None = None  # the group of the last server that ran
        self._retiring: set[ProcessGroup] = set()  # old servers still leaving
        self.watcher = Watcher(paths, self.changed, relay.loop, ignore, on_error=say)
        self._tasks.spawn(self._watch(paths), "watching for changes")

    async def _watch(self, paths: list[Path]) -> None:
        await self.relay.loop.run_in_executor(None, self.watcher.start)
        names = ", ".join(str(path) for path in paths)
        say(f"watching {names}: a change restarts the server behind the client")
        self.relay.note(f"watching {names} for changes", watch=[str(path) for path in paths])

    def close(self) -> None:
        """The tap ends: no more watching; an old server still leaving gets SIGKILL (it had SIGTERM or EOF)."""
        self.watcher.stop()
        self._tasks.cancel_all()
        for group in list(self._retiring):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                kill_group(group.pgid, signal.SIGKILL)

    def _new_id(self) -> str:
        return f"{ID_PREFIX}{next(self._ids)}"

    # -- the lines -------------------------------------------------------------------------------------------

    def c2s(self, data: bytes) -> None:
        head, lines, tail = self.c2s_lines.feed(data)
        if self.state == RESTARTING:  # all of it waits, in order (a part of a line is not JSON: it goes on as is)
            self.queue.extend(part for part in (head, *lines, tail) if part)
            return
        if head:
            self.relay.past_reload_c2s(head)
        self._from_client(lines)
        if tail:
            self.relay.past_reload_c2s(tail)

    def _from_client(self, lines: list[bytes]) -> None:
        if self.state == RESTARTING:
            self.queue.extend(lines)
            return
        run: list[bytes] = []
        for line in lines:
            message = parse(line)
            if self.state == DOWN:
                self._answer_down(line, message)
                continue
            self.session.from_client(line, message)
            run.append(line)
        if run:
            self.relay.past_reload_c2s(b"".join(run))

    def _answer_down(self, line: bytes, message: dict[str, Any] | None) -> None:
        """No server runs (the last reload failed): the line is recorded, a request answered with the error."""
        self.relay.link.send(C2S, line)
        if message is not None and isinstance(message.get("method"), str) and "id" in message:
            assert self.failure is not None
            self._to_client_own(error_answer(message["id"], self.failure[0]))

    def s2c(self, data: bytes) -> None:
        head, lines, tail = self.s2c_lines.feed(data)
        if head:
            self.relay.past_reload_s2c(head)
        run: list[bytes] = []
        for line in lines:
            message = parse(line) if (b'"id"' in line or b"acknowledged" in line) else None
            if message is not None and own_id(message):
                if run:
                    self.relay.past_reload_s2c(b"".join(run))
                    run = []
                self.relay.link.send(S2C, line)  # recorded; the client never sees it
                waiter = self.waiters.pop(str(message["id"]), None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(message)
                continue
            if message is not None and self.session.answers_handshake(message):
                declared = declaring_list_changed(message)
                if declared is not None:
                    if run:
                        self.relay.past_reload_s2c(b"".join(run))
                        run = []
                    self._declare(line, dump(declared))
                    self.session.from_server(message)
                    continue
            if message is not None and not self.session.from_server(message):
                if run:
                    self.relay.past_reload_s2c(b"".join(run))
                    run = []
                self.relay.link.send(S2C, line)
                self.relay.note("a new server's acknowledgement of a subscription the client already had was not "
                                "passed on (reload)")
                continue
            run.append(line)
        if run:
            self.relay.past_reload_s2c(b"".join(run))
        if tail:
            self.relay.past_reload_s2c(tail)

    def _declare(self, line: bytes, changed: bytes) -> None:
        """The server's answer to the client's handshake goes on declaring ``listChanged`` (see
        :func:`~inspector.core.protocol.reload.declaring_list_changed`): the capture keeps both, marked as an
        intercept rule's rewrite is (``by: "reload"``)."""
        raw = line.rstrip(b"\r\n")
        eol = line[len(raw):]
        why = "tap --watch declares listChanged: it tells the client when a reload changes a list"
        self.relay.link.send(INTERCEPTED, pack_record(Record("s2c", raw, mark(0, "rewrite", ORIGINAL, by=RELOAD,
                                                                               note=why)), eol))
        if self.relay.intercept is not None:  # the rules see what the client would get
            self.relay.intercept.s2c.feed(changed)
            return
        self.relay.client_out.write(changed)
        self.relay.link.send(INTERCEPTED, pack_record(Record("s2c", changed.rstrip(b"\n"),
                                                             mark(0, "rewrite", CHANGED, by=RELOAD)), eol))

    def _to_client_own(self, line: bytes) -> None:
        """A line of the inspector's own to the client (past the rules: they are about the server's lines)."""
        self.relay.client_out.write(line)
        self.relay.link.send(S2C, line)

    def _to_server_own(self, line: bytes) -> None:
        if self.relay.server_stdin is not None:
            self.relay.server_stdin.write(line)
        self.relay.link.send(C2S, line)

    def end_of_client(self) -> None:
        """The client's stdin ended: what is left of its last line goes on as it came."""
        rest = self.c2s_lines.end()
        if rest:
            if self.state == RESTARTING:
                self.queue.append(rest)
            elif self.state == LIVE:
                self.relay.past_reload_c2s(rest)
            else:
                self.relay.link.send(C2S, rest)

    # -- the relay's events ----------------------------------------------------------------------------------

    def hold_eof(self, then: Callable[[], None]) -> bool:
        """The client's stdin ended. While the server restarts, ``then`` (the relay's own handling: close the
        server's stdin) waits for the restart (True); with no server running, the tap ends with the failed
        server's status (False: the relay goes on, and finds the session over)."""
        self.end_of_client()
        self.client_ended = True
        if self.state == RESTARTING:
            self.eof_then = then
            return True
        if self.state == DOWN:
            self._end()
        return False

    def signalled(self, sig: int) -> bool:
        """A signal to the tap: True when the reload took care of it (no server to pass it to: the tap ends);
        False: the relay passes it to the server now running, whose exit ends the tap."""
        task = self._reload_task
        if task is not None and not task.done():
            task.cancel()  # a reload cut short: the process now running, if any, is the relay's own again
            stand, self._stand = self._stand, None
            process = self.relay.process
            if stand is not None and process is not None and stand.process is process and not stand.exited.done():
                process.get_protocol().relay = self.relay  # type: ignore[attr-defined]  # a _ServerProtocol
                self.state = LIVE
                return False
            self._end(-sig)
            return True
        if self.state == DOWN:
            self._end(-sig)
            return True
        return False

    def _end(self, code: int | None = None) -> None:
        """No server runs and the session ends: the relay's wait for the server's exit and pipes is over."""
        relay = self.relay
        self.state = DOWN
        if not relay.exited.done():
            relay.exited.set_result(code if code is not None else (self.failure[1] if self.failure else 1))
        for done in (relay.stdout_done, relay.stderr_done):
            if not done.done():
                done.set_result(None)

    # -- the reload ------------------------------------------------------------------------------------------

    def changed(self, paths: list[str]) -> None:
        """A debounced batch of changed paths (on the loop)."""
        if self.relay.exited.done() or self.relay.stop_waiting.is_set() or self.client_ended:
            return
        self.changes.extend(path for path in paths if path not in self.changes)
        if self._reload_task is None or self._reload_task.done():
            self._reload_task = self._tasks.spawn(self.reload(), "reloading the server")

    async def reload(self) -> None:
        while self.changes and not self.client_ended:
            changed, self.changes = self.changes, []
            await self._reload_once(changed)

    async def _reload_once(self, changed: list[str]) -> None:
        relay = self.relay
        began = time.monotonic()
        was, self.state = self.state, RESTARTING
        self.reloads += 1
        relay.lifecycle(Lifecycle.RELOADING, changed=changed)
        before = self.lists
        if was == LIVE and relay.process is not None:
            before = await self._retire(changed)
        else:
            self._reset_relay()
        try:
            after = await self._start()
        except _ReloadFailed as failure:
            self.lists = before  # what the client last saw: the next reload compares with it
            self._failed(failure)
            return
        finally:
            self._stand = None
        kinds = changed_kinds(before, after) if after is not None else []
        self.lists = after if after is not None else self.lists
        self.failure = None
        self.state = LIVE
        notices = self.session.changed_notifications(kinds)
        if notices:
            relay.note(f"the inspector tells the client that its {', '.join(kinds)} changed (reload)",
                       reload=self.reloads)
            for line in notices:
                self._to_client_own(line)
        again = self.session.take_outstanding()
        if again:
            relay.note(f"{len(again)} request(s) the old server had not answered go to the new server (reload)",
                       request_ids=[request_id for request_id, _line in again])
            self._from_client([line for _request_id, line in again])  # kept outstanding: a second save resends them
        self._flush_queue()
        spent = time.monotonic() - began
        what = f"{', '.join(kinds)} changed" if kinds else "no list changed"
        say(f"reloaded in {spent:.1f} s after a change to {_names(changed)} ({what})")
        if self.eof_then is not None:
            then, self.eof_then = self.eof_then, None
            self.end_of_client()
            then()

    def _flush_queue(self) -> None:
        queued, self.queue = self.queue, []
        self._from_client(queued)

    async def _retire(self, changed: list[str]) -> dict[str, Items] | None:
        """Asks the old server for its lists, then stops it; its lists (None if it could not say)."""
        relay = self.relay
        process = relay.process
        assert process is not None and relay.group is not None
        stand = self._stand = _Stand(relay, forwarding=True)
        stand.process = process
        process.get_protocol().relay = stand  # type: ignore[attr-defined]  # a _ServerProtocol
        before = None
        if self.session.known and not stand.exited.done():
            before = await self._list(self.session.capabilities, stand, "the old server")
        stand.forwarding = False  # what it says from now on is recorded, not passed on
        relay.client_in.resume("server-stdin")
        stdin, group = relay.server_stdin, relay.group
        self._drop_partial_answer()
        self._reset_relay()
        if stdin is not None:
            stdin.close()
        # the new server starts while the old one leaves (a Python server takes a few hundred milliseconds to
        # leave on EOF): save to list_changed is then the new server's start and little more
        self._retiring.add(group)
        self._tasks.spawn(self._stop(process, group, stand), "stopping the old server")
        return before

    async def _stop(self, process: asyncio.SubprocessTransport, group: ProcessGroup, stand: _Stand) -> None:
        """The old server leaves: its stdin is closed; :data:`RELOAD_STOP_GRACE`, then SIGTERM, then SIGKILL."""
        try:
            await group.stop(stand.wait_exit, RELOAD_STOP_GRACE)
            code = stand.exited.result() if stand.exited.done() else None
            data: dict[str, Any] = {"code": code} if code is None or code >= 0 else {"signal": -code}
            if group.signalled:
                data["after"] = group.signalled
            self.relay.lifecycle(Lifecycle.EXITED, pid=group.pgid, reload=True, **data)
            await group.reap()
        finally:
            self._retiring.discard(group)
            process.close()

    def _drop_partial_answer(self) -> None:
        rest = self.s2c_lines.end()
        if rest:
            self.relay.link.send(S2C, rest + b"\n")
            self.relay.note("the old server's last line was cut short by the reload; the client did not get it")

    def _reset_relay(self) -> None:
        relay = self.relay
        self._last_group = relay.group or self._last_group
        relay.process = None
        relay.pid = None
        relay.group = None
        relay.server_stdin = None
        relay.server_out.transport = None
        relay.server_err.transport = None
        relay.reset_stdin_state()

    async def _start(self) -> dict[str, Items] | None:
        """Starts the new server and replays the handshake; its lists (None: the client said nothing yet)."""
        relay = self.relay
        try:
            await relay.start_server()
        except StartFailed as failure:
            raise _ReloadFailed(failure.sentence, failure.status) from None
        process = relay.process
        assert process is not None
        stand = self._stand = _Stand(relay, forwarding=True)
        stand.process = process
        process.get_protocol().relay = stand  # type: ignore[attr-defined]  # a _ServerProtocol
        if process.get_returncode() is not None:
            stand.process_exited()
        first, then = self.session.handshake(self._new_id)
        after = None
        if first is not None:
            relay.note("the inspector tells the new server the client's handshake again; the client does not see "
                       "its answer (reload)")
            answer = await self._ask(first, stand, RELOAD_START_TIMEOUT, "the handshake")
            if answer is None:
                raise await self._not_started(stand)
            if "result" not in answer:
                error = answer.get("error")
                message = error.get("message") if isinstance(error, dict) else None
                raise await self._not_started(stand, f"it answered the handshake with an error: {message}")
            self.session.capabilities = capabilities(answer["result"])
            for line in then:
                self._to_server_own(line)
            after = await self._list(self.session.capabilities, stand, "the new server")
        if stand.exited.done():
            raise await self._not_started(stand)
        process.get_protocol().relay = relay  # type: ignore[attr-defined]  # the relay's own from now on
        for fd, exc in stand.closed:  # a pipe it closed meanwhile (rare: a server that closes stdin)
            relay.pipe_closed(fd, exc)
        return after

    async def _not_started(self, stand: _Stand, why: str | None = None) -> _ReloadFailed:
        """The new server exited or did not answer: it is stopped (if it runs) and the failure said."""
        relay = self.relay
        timed_out = not stand.exited.done()
        if timed_out and relay.group is not None:
            await relay.group.stop(stand.wait_exit, 0)
        code = stand.exited.result() if stand.exited.done() else None
        # its last stderr lines reach the tap's stderr before the tap's own sentence about them
        await asyncio.wait([stand.stderr_done], timeout=STDERR_DRAIN_TIMEOUT)
        if why is None:
            why = f"it did not answer the handshake within {RELOAD_START_TIMEOUT:g} s" if timed_out else "it exited"
        if code is not None and not timed_out:
            why = f"{why}, exit status {code if code >= 0 else 128 - code}"
        if relay.group is not None:
            data: dict[str, Any] = {"code": code} if code is None or code >= 0 else {"signal": -code}
            relay.lifecycle(Lifecycle.EXITED, pid=relay.group.pgid, reload=True, failed=True, **data)
        return _ReloadFailed(why, code, stand.stderr_tail.decode("utf-8", "replace").splitlines()[-20:])

    def _failed(self, failure: _ReloadFailed) -> None:
        if self.relay.group is None:  # it could not even be started: the relay ends with the last group it had
            self.relay.group = self._last_group
        sentence = f"The server restarted after a change and failed to start ({failure.why})."
        code = failure.code if failure.code is not None else 1
        self.failure = (sentence, code)
        self.state = DOWN
        self.relay.note(sentence, failure=True, reload=self.reloads)
        owed = self.session.take_outstanding()
        queued, self.queue = self.queue, []
        for request_id, _line in owed:
            self._to_client_own(error_answer(request_id, sentence))
        for line in queued:
            self._answer_down(line, parse(line))
        say(f"{sentence[0].lower()}{sentence[1:-1]}; the next change tries again")
        explain = self.relay.options.explain_failure
        if explain is not None:
            with contextlib.suppress(Exception):  # a diagnosis is a courtesy: the failure is said already
                said = explain(self.relay.options.argv, failure.stderr)
                if said:
                    say(said)
        if self.eof_then is not None:
            self.eof_then = None
            self._end()

    async def _ask(self, line: bytes, stand: _Stand, timeout: float, what: str) -> dict[str, Any] | None:
        """Sends one of the inspector's own requests; its answer, or None (the server exited, or ``timeout``)."""
        message = parse(line)
        assert message is not None
        waiter = self.waiters[str(message["id"])] = self.relay.loop.create_future()
        self._to_server_own(line)
        try:
            await asyncio.wait([waiter, stand.exited], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.waiters.pop(str(message["id"]), None)
        return waiter.result() if waiter.done() else None

    async def _list(self, kinds: list[str], stand: _Stand, whose: str) -> dict[str, Items]:
        """A server's lists of ``kinds`` (each None when it did not say within :data:`LIST_TIMEOUT`)."""
        listing = Listing(self.session, kinds, self._new_id)
        if not kinds:
            return listing.items
        self.relay.note(f"the inspector asks {whose} for its {', '.join(kinds)}; the client does not see the "
                        f"answers (reload)")
        answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        deadline = self.relay.loop.time() + LIST_TIMEOUT

        def answered(done: asyncio.Future[dict[str, Any]]) -> None:
            if not done.cancelled():
                answers.put_nowait(done.result())

        def send(lines: list[bytes]) -> None:
            for line in lines:
                message = parse(line)
                assert message is not None
                waiter = self.waiters[str(message["id"])] = self.relay.loop.create_future()
                waiter.add_done_callback(answered)
                self._to_server_own(line)

        send(listing.start())
        while not listing.done and not stand.exited.done():
            left = deadline - self.relay.loop.time()
            if left <= 0:
                break
            got: asyncio.Future[Any] = asyncio.ensure_future(answers.get())
            await asyncio.wait([got, stand.exited], timeout=left, return_when=asyncio.FIRST_COMPLETED)
            if not got.done():
                got.cancel()
                break
            send(listing.answer(got.result()))
        listing.give_up()
        for key in [key for key in self.waiters if key.startswith(ID_PREFIX)]:
            self.waiters.pop(key).cancel()
        return listing.items


def _names(paths: list[str]) -> str:
    names = [Path(path).name for path in paths[:3]]
    return ", ".join(names) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
