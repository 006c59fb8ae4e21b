"""Intercept rules in the stdio tap (``tap --rules FILE``): the relay frames each direction into lines and asks
an :class:`~inspector.core.intercept.engine.Interceptor` about each one.

Without rules the relay never looks at a line (:mod:`inspector.core.tap.relay`: bytes as read, spliced where
both ends are pipes). With rules, both directions are read by the relay (no splice) and cut at each newline
(``bytes.find`` over the chunk): the bytes of a line are held until its newline, then the line (without its
``\\n`` or ``\\r\\n``) gets its verdict (a line that holds none of the strings :func:`needles` finds in the
rules is a pass without asking the engine). A run of lines that no rule matched goes on as one write and one spool
frame, as the chunk came; a line a rule matched gets :attr:`Verdict.out` plus its own terminator to its peer,
and :attr:`Verdict.answer` plus ``\\n`` back to its sender (a held client request: the error goes to the
client's stdout; a held server request: to the server's stdin). Both directions are framed because an answer
or a delayed message may only enter a stream between two lines.

A delay (or a pause, decided by the relay's ``pauser``) holds only its own message: a timer, and what comes
after it flows meanwhile. When a stream ends, the messages it still holds go first (the server's stdin is
closed, the client's stdout closed, once they are out); when the session ends (the server exited), the tap waits
for them at most :data:`~inspector.core.tap.relay.STDOUT_FLUSH_TIMEOUT` (a signal cuts it short), then lets
them go at once, recorded with the time they really waited; one whose peer is gone is recorded dropped, with a
note.

A line longer than the relay will hold (``--max-message``) is not decided: its bytes go on as they come, with a
note, and framing resumes after its newline; lines for the same peer wait for its end.

What goes to the recorder: the bytes of runs no rule matched as ordinary frames (the recorder decodes them as
before), and each message :func:`~inspector.core.intercept.records.records` lists for a verdict as one
:data:`~inspector.core.tap.options.INTERCEPTED` frame (:func:`pack_record`), stamped when it happened: a
delayed message when it went on, its mark's ``arrived`` when it came.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import struct
import time
from collections.abc import Callable
from typing import Any, Protocol

from inspector.core.intercept.engine import PASS_ACTION, Interceptor, Verdict
from inspector.core.intercept.records import Record, records
from inspector.core.intercept.rules import Rules
from inspector.core.intercept.transport import Pauser
from inspector.core.tap.breakpoint_link import BreakpointLink
from inspector.core.tap.options import C2S, INTERCEPTED, S2C
from inspector.core.tasks import Tasks
from inspector.core.wire.intercepted import DROPPED, HELD, ORIGINAL

try:  # SIMD substring search: 40+ GB/s where bytes.find reads a needle at about 1 GB/s
    from stringzilla import find as _find
except ImportError:  # pragma: no cover - a platform without its wheels: the same answers, slower
    _find = bytes.find

#: An INTERCEPTED frame's payload: direction tag (C2S or S2C), the line terminator's length (0-2), the mark's
#: length (0: no mark), then the mark (JSON), the terminator and the message's bytes.
RECORD_HEAD = struct.Struct("<BBI")
#: Roles of messages recorded and never written (their peer never got them).
_NOT_WRITTEN = frozenset({ORIGINAL, DROPPED, HELD})


def pack_record(record: Record, eol: bytes) -> bytes:
    """One message to record, as an INTERCEPTED frame's payload."""
    mark = json.dumps(record.mark, ensure_ascii=False).encode("utf-8") if record.mark is not None else b""
    tag = C2S if record.dir == "c2s" else S2C
    return RECORD_HEAD.pack(tag, len(eol), len(mark)) + mark + eol + record.raw


def unpack_record(payload: bytes) -> tuple[str, bytes, bytes, dict[str, Any] | None]:
    """(direction, raw, eol, mark) of an INTERCEPTED frame's payload."""
    tag, eol_size, mark_size = RECORD_HEAD.unpack_from(payload)
    at = RECORD_HEAD.size
    mark = json.loads(payload[at:at + mark_size]) if mark_size else None
    at += mark_size
    eol = payload[at:at + eol_size]
    return ("c2s" if tag == C2S else "s2c"), payload[at + eol_size:], eol, mark


def needles(rules: Rules, direction: str) -> tuple[bytes, ...] | None:
    """Byte strings of which every line going ``direction`` that could matter to the engine contains one; None when
    any line could (a rule that may match this direction and names no method, no tool and no literal pattern).

    A line with no backslash and no ``"id"`` is no request and no response (JSON spells the key ``id`` as
    ``"id"`` or with an escape), so the engine neither remembers nor pairs it; if it also holds none of the
    methods the rules for this direction name (``tools/call`` for a ``tool``) nor, for a rule without one, the
    literal its ``match`` pattern requires (:func:`required_literal`: ASCII letters, digits and ``_-/:@,``, which
    the decoded text holds where the raw bytes hold them, and nowhere else), no such rule can match it (all of a rule's
    conditions must hold): the verdict is a plain pass, and the engine is not asked (a flood of
    notifications then costs a few ``bytes.find`` a line instead of a parse; ``re`` with the needles as
    alternatives tries each at every position, ten times slower)."""
    if not any(rule.enabled for rule in rules.rules):
        return ()  # no rule at all (a tap tab's breakpoints not set yet): the engine would pass every line
    found = {b"\\", b'"id"'}
    for rule in rules.rules:
        if not rule.enabled or rule.when.dir not in (None, direction):
            continue
        method = rule.when.method or ("tools/call" if rule.when.tool is not None else None)
        if method is not None:
            found.add(method.encode("utf-8"))
        elif rule.when.match is not None and (literal := required_literal(rule.when.match)) is not None:
            found.add(literal.encode("ascii"))
        else:
            return None
    return tuple(sorted(found, key=len, reverse=True))


#: Characters a pattern reads as themselves outside a set (``regex``, version 0, the default).
_LITERAL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-/:@,")
#: What makes a pattern more than literals, sets and repeats of one item: escapes, groups (and so inline flags,
#: which could make a letter match its other case), alternatives, counted (or fuzzy) repeats.
_NOT_SIMPLE = frozenset("\\()|{")


def required_literal(pattern: str) -> str | None:
    """The longest run of characters that every match of ``pattern`` holds as they are (``secre`` of
    ``secre[t]``, all of ``tools/list``); None when the pattern is not simple enough to say (:data:`_NOT_SIMPLE`)
    or holds no such run. A character followed by ``*`` or ``?`` may be absent, so it ends a run; a set gives
    nothing (a set that holds ``[`` makes the pattern not simple)."""
    if any(char in _NOT_SIMPLE for char in pattern):
        return None
    runs, run, at = [], "", 0
    while at < len(pattern):
        char = pattern[at]
        if char in _LITERAL and not pattern.startswith(("*", "?"), at + 1):
            run += char
            at += 1
            continue
        runs.append(run)
        run = ""
        if char == "[":  # a set ends at the first "]" after its first character (after "^")
            first = at + 2 if pattern.startswith("^", at + 1) else at + 1
            end = pattern.find("]", first + 1)
            if end < 0 or "[" in pattern[first:end]:
                return None
            at = end + 1
        else:
            at += 1
    runs.append(run)
    return max(runs, key=len) or None


#: A line cut by the previous chunk is joined to the next chunk when at most this much of the chunk follows its end
#: (one write and one spool frame for the run); after a bigger chunk it goes on by itself (a write and a frame more
#: cost less than copying the chunk).
JOIN_AT_MOST = 64 * 1024


class Link(Protocol):
    def send(self, tag: int, data: bytes | memoryview = b"") -> None: ...


class Peer:
    """One stream the relay writes whole lines to (the server's stdin, the client's stdout). While a line too
    long to hold passes through it, other lines wait for that line's end."""

    def __init__(self, write: Callable[[bytes | memoryview], None], is_open: Callable[[], bool]) -> None:
        self._write = write
        self.is_open = is_open
        self.mid_line = False
        self._waiting: list[bytes | memoryview] = []

    def line(self, data: bytes | memoryview) -> None:
        if self.mid_line:
            self._waiting.append(data)
        else:
            self._write(data)

    def part(self, data: bytes, ends: bool) -> None:
        """Bytes of a line passing through; ``ends``: they end it."""
        if data:
            self._write(data)
        self.mid_line = not ends
        if ends and self._waiting:
            waiting, self._waiting = self._waiting, []
            for line in waiting:
                self._write(line)


class _Held:
    """A message waiting out a delay or a person's decision."""

    __slots__ = ("line", "eol", "verdict", "arrived", "came", "paused", "timer", "task")

    def __init__(self, line: bytes, eol: bytes, verdict: Verdict, arrived: float) -> None:
        self.line = line
        self.eol = eol
        self.verdict = verdict
        self.arrived = arrived
        self.came = time.monotonic()
        self.paused: float | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None


class Framer:
    """One direction: cuts its bytes into lines, asks the interceptor, carries out each verdict."""

    def __init__(self, host: TapIntercept, direction: str, peer: Peer, sender: Peer, limit: int) -> None:
        self.host = host
        self.direction = direction
        self.tag = C2S if direction == "c2s" else S2C
        self.peer = peer
        self.sender = sender
        self.limit = limit
        self._partial: list[bytes] = []
        self._partial_size = 0
        self._through = False  # a line over the limit is passing through
        self.held: set[_Held] = set()
        self._when_empty: list[Callable[[], None]] = []
        self._rules: Rules | None = None  # the rules self._needles were found for
        self._needles: tuple[bytes, ...] | None = None

    # -- the hot path --------------------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        begin = 0
        if self._through:
            nl = data.find(b"\n")
            if nl < 0:
                self._pass_part(data, False)
                return
            self._pass_part(data[:nl + 1], True)
            begin = nl + 1
        if self._partial:
            nl = data.find(b"\n", begin)
            if nl < 0:
                self._hold_part(data[begin:] if begin else data)
                return
            if len(data) - nl > JOIN_AT_MOST:
                # the cut line is completed and framed by itself: joining it to the whole chunk would copy the chunk
                self._partial.append(data[begin:nl + 1])
                self._frame(self._take_partial(), 0)
                begin = nl + 1
            else:
                self._partial.append(data[begin:] if begin else data)
                data, begin = self._take_partial(), 0
        self._frame(data, begin)

    def _take_partial(self) -> bytes:
        data = b"".join(self._partial)
        self._partial.clear()
        self._partial_size = 0
        return data

    def _frame(self, data: bytes, begin: int) -> None:
        """Frames ``data`` from ``begin`` on: complete lines get their verdicts, the rest waits for its newline."""
        interceptor = self.host.interceptor
        if interceptor.rules is not self._rules:  # rules may change at any time
            self._rules = interceptor.rules
            self._needles = needles(self._rules, self.direction)
        skip = self._needles
        decide = interceptor.decide
        direction = self.direction
        start = run = begin
        find = data.find
        # where each needle occurs next (-1: nowhere after start): found once per chunk, then again only for a
        # needle the framing has passed, so the whole chunk is searched about once a needle
        wanted = skip or ()
        positions = [_find(data, needle, begin) for needle in wanted] if skip is not None else None
        while True:
            if positions is not None:
                # lines before the first that holds a needle pass without the engine (needles())
                hit = -1
                for i, at in enumerate(positions):
                    if 0 <= at < start:
                        at = positions[i] = _find(data, wanted[i], start)
                    if at >= 0 and (hit < 0 or at < hit):
                        hit = at
                if hit < 0:
                    start = data.rfind(b"\n", start) + 1 or start
                    break
                start = max(start, data.rfind(b"\n", start, hit) + 1)
                nl = find(b"\n", hit)
            else:
                nl = find(b"\n", start)
            if nl < 0:
                break
            end = nl - 1 if nl > start and data[nl - 1] == 13 else nl
            line = data[start:end]
            verdict = decide(direction, line)
            if verdict.rule is None or (verdict.action == "pause" and self.host.pauser is None):
                start = nl + 1  # goes on as it came, with the rest of the run
                continue
            if start > run:
                self._pass(memoryview(data)[run:start])
            start = run = nl + 1
            self._act(line, data[end:start], verdict)
        if start > run:
            self._pass(data if run == 0 and start == len(data) else memoryview(data)[run:start])
        if start < len(data):
            self._hold_part(data[start:] if start else data)

    def _pass(self, data: bytes | memoryview) -> None:
        self.peer.line(data)
        self.host.link.send(self.tag, data)

    def _hold_part(self, data: bytes) -> None:
        self._partial.append(data)
        self._partial_size += len(data)
        if self._partial_size > self.limit:
            self.host.note(f"a {self.direction} line grew past {self._partial_size} bytes without a newline; "
                           "it goes on as it comes, without intercept rules", direction=self.direction)
            self._pass_part(self._take_partial(), False)

    def _pass_part(self, data: bytes, ends: bool) -> None:
        self._through = not ends
        self.peer.part(data, ends)
        if data:
            self.host.link.send(self.tag, data)

    def end(self) -> None:
        """The stream ended: what is left of a line (no newline) goes on as it came, undecided."""
        if self._partial:
            self._pass_part(self._take_partial(), True)
        elif self._through:
            self._pass_part(b"", True)

    # -- verdicts --------------------------------------------------------------------------------------------

    def _act(self, line: bytes, eol: bytes, verdict: Verdict) -> None:
        if verdict.action == "pause" or verdict.delay > 0:
            held = _Held(line, eol, verdict, self.host.now())
            self.held.add(held)
            if verdict.action == "pause":
                held.task = self.host.tasks.spawn(self._ask(held), "waiting for a decision on a paused message")
            else:
                held.timer = self.host.loop.call_later(verdict.delay, self.release, held)
            return
        self._carry(line, eol, verdict, None, None)

    async def _ask(self, held: _Held) -> None:
        pauser = self.host.pauser
        assert pauser is not None
        began = time.monotonic()
        try:
            verdict = await pauser(self.direction, held.line, held.verdict)
        except Exception:  # whoever decides failed: the message goes on as it came, not lost
            verdict = Verdict(PASS_ACTION, held.verdict.rule, out=held.line)
        held.paused = time.monotonic() - began
        held.task = None
        held.verdict = verdict
        if verdict.delay > 0:
            held.timer = self.host.loop.call_later(verdict.delay, self.release, held)
        else:
            self.release(held)

    def release(self, held: _Held, early: bool = False) -> None:
        """A held message goes on (``early``: the session is ending; it waited what it waited)."""
        if held not in self.held:
            return
        self.held.discard(held)
        for pending in (held.timer, held.task):
            if pending is not None:
                pending.cancel()
        verdict = held.verdict
        waited = time.monotonic() - held.came
        if verdict.action == "pause":  # nobody decided before the end: it goes on as it came
            verdict = Verdict(PASS_ACTION, verdict.rule, out=held.line)
            held.paused = waited
        elif early and verdict.delay > 0:
            verdict = dataclasses.replace(verdict, delay=max(0.0, waited - (held.paused or 0.0)))
        if verdict.out and not self.peer.is_open():
            where = "the server's stdin" if self.direction == "c2s" else "the client's stdout"
            self.host.note(f"{verdict.rule.label() if verdict.rule else 'a breakpoint'} held a message until "
                           f"{where} was closed: it was never delivered", direction=self.direction)
            verdict = Verdict("drop", verdict.rule)
        self._carry(held.line, held.eol, verdict, held.arrived, held.paused)
        if not self.held:
            callbacks, self._when_empty = self._when_empty, []
            for callback in callbacks:
                callback()

    def _carry(self, line: bytes, eol: bytes, verdict: Verdict, arrived: float | None,
               paused: float | None) -> None:
        send = self.host.link.send
        for record in records(self.direction, line, verdict, arrived=arrived, paused=paused):
            if record.dir != self.direction:  # the tap's answer to the sender's held request
                self.sender.line(record.raw + b"\n")
                send(INTERCEPTED, pack_record(record, b"\n"))
                continue
            if record.mark is None or record.mark["role"] not in _NOT_WRITTEN:
                self.peer.line(record.raw + eol)
            send(INTERCEPTED, pack_record(record, eol))

    def after_held(self, callback: Callable[[], None]) -> bool:
        """Call ``callback`` once no message is held (True), or say that none is (False; it is not called)."""
        if not self.held:
            return False
        self._when_empty.append(callback)
        return True


class TapIntercept:
    """Intercept rules on one relay: a :class:`Framer` a direction (see the module)."""

    def __init__(self, interceptor: Interceptor, link: Link, t0: float, peers: tuple[Peer, Peer], limit: int,
                 note: Callable[..., None]) -> None:
        server_stdin, client_stdout = peers
        self.interceptor = interceptor
        self.link = link
        self.t0 = t0
        self.note = note
        self.loop = asyncio.get_running_loop()
        self.tasks = Tasks()
        #: decides paused messages (the window, later; the session wrapper's signature); None: a pause passes the
        #: message on unchanged
        self.pauser: Pauser | None = None
        self.c2s = Framer(self, "c2s", server_stdin, client_stdout, limit)
        self.s2c = Framer(self, "s2c", client_stdout, server_stdin, limit)

    @classmethod
    def on_relay(cls, relay: Any, rules: Rules | None, t0: float, pauser: Pauser | None,
                 window: BreakpointLink | None = None) -> TapIntercept | None:
        """Rules on a :class:`~inspector.core.tap.relay.Relay` (its streams and its link to the recorder); None
        when no rule is enabled (the relay then never looks at a line). With a ``window`` (a tap tab's breakpoint
        link) always: its interceptor gets the window's breakpoints whenever they change, and the window decides
        paused messages."""
        if window is not None:
            interceptor, pauser = window.interceptor, window.pause
            window.said = relay.note
        else:
            interceptor = Interceptor(rules)
            if not interceptor.active:
                return None
        def to_server(data: bytes | memoryview) -> None:
            if relay.server_stdin is not None:
                relay.server_stdin.write(data)

        client_out = relay.client_out
        peers = (Peer(to_server, lambda: relay.server_stdin is not None),
                 Peer(client_out.write, lambda: not client_out.broken and not client_out.closed.done()))
        made = cls(interceptor, relay.link, t0, peers, relay.options.max_message, relay.note)
        made.pauser = pauser
        return made

    def now(self) -> float:
        """Seconds since the tap started (the capture's ``t``)."""
        return round(time.monotonic() - self.t0, 6)

    @property
    def holding(self) -> bool:
        return bool(self.c2s.held or self.s2c.held)

    async def settle(self, stop: asyncio.Event, timeout: float) -> None:
        """The session is ending: what is left of a line goes on; held messages get at most ``timeout`` (or
        until ``stop``), then go on at once."""
        for framer in (self.c2s, self.s2c):
            framer.end()
        if self.holding:
            done = self.loop.create_future()

            def check() -> None:
                if not self.holding and not done.done():
                    done.set_result(None)

            for framer in (self.c2s, self.s2c):
                framer.after_held(check)
            stopped = asyncio.ensure_future(stop.wait())
            try:
                await asyncio.wait([done, stopped], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stopped.cancel()
        for framer in (self.c2s, self.s2c):
            for held in sorted(framer.held, key=lambda held: held.came):
                framer.release(held, early=True)
        self.tasks.cancel_all()
