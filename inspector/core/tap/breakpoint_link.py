"""Breakpoints in a tap tab: the tap's relay asks the window what to do with a paused message of a real client.

The stdio tap's relay (not its recorder: the relay holds the bytes) opens a second connection to the window's
tap socket (:mod:`inspector.core.tap.channel`: the same private per-user Unix socket and the same checks) when it
starts. Without a window there is no link, and the tab that shows the tap later has no breakpoints for it.

Protocol, version 1: UTF-8 JSON, one object per line, both ways.

- relay → window, first: ``{"type": "breakpoints", "protocol": 1, "name": NAME, "pid": PID}`` (the same name
  and pid as the tap's own hello, so the window finds the tab).
- window → relay: ``{"type": "rules", "rules": [...]}``: the tab's breakpoints (the rules-file shape, numbered
  after the tap's own ``--rules``), at once and whenever they change. The relay waits :data:`FIRST_RULES_WAIT`
  for the first, so the client's first messages already meet them.
- relay → window: ``{"type": "in_force", "breakpoints": N}``: the window's rules the relay now acts on (each
  ``rules`` line is answered so; what the client sends after it meets them).
- relay → window: ``{"type": "paused", "id": N, "dir": "c2s", "text": "...", "rule": R, "breakpoint": B}``: a
  message held by rule R, the window's breakpoint B (numbered in the window's list; 0 when it is a rule of the
  tap's own ``--rules``). ``text`` is its bytes as UTF-8; bytes that are not UTF-8 come as ``"base64"`` instead.
- window → relay: ``{"type": "decide", "id": N, "choice": "forward" | "drop" | "error" | "delay", "edited":
  TEXT or null, "code": C, "message": M, "ms": MS}``: the person's decision, turned into a verdict by
  :meth:`~inspector.core.intercept.engine.Interceptor.resolve`.

When the link breaks (the tab or the window closed) every paused message goes on unchanged, and new pauses pass
at once: nobody is left to decide. Lines the relay cannot read are skipped; a decision for an unknown id is
ignored. Nothing the window sends can make the relay write anywhere but the message's own peer.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from inspector.core.intercept.engine import PASS_ACTION, Interceptor, Verdict
from inspector.core.intercept.rules import Rule, Rules, RulesError, parse_rules
from inspector.core.tap.channel import MAX_LINE_BYTES, json_objects, peer_uid, private_dir_problem, send_json_line
from inspector.core.waiting import wait_for

PROTOCOL_VERSION = 1
#: How long the relay waits for the window's first rules before the server starts (a window answers in
#: milliseconds; a hung one must not hold the client's server back).
FIRST_RULES_WAIT = 2.0
#: How long the relay tries to reach the window's socket (a local socket answers at once or not at all).
CONNECT_WAIT = 1.0


def _encoded(raw: bytes) -> dict[str, str]:
    try:
        return {"text": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(raw).decode("ascii")}


def decoded(obj: dict[str, Any]) -> bytes:
    """A paused message's bytes from its ``paused`` line."""
    if isinstance(obj.get("text"), str):
        return str(obj["text"]).encode("utf-8")
    return base64.b64decode(str(obj.get("base64", "")), validate=False)


class BreakpointLink:
    """The relay's side: the window's breakpoints for this tap, and the :data:`Pauser` that asks it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, interceptor: Interceptor,
                 own: Rules) -> None:
        self._reader = reader
        self._writer = writer
        self.interceptor = interceptor
        self.own = own  #: the tap's ``--rules`` (the window's come after them)
        self._waiting: dict[int, tuple[asyncio.Future[dict[str, Any]], str, bytes, Rule | None]] = {}
        self._next = 0
        self._first = asyncio.get_running_loop().create_future()
        self._task = asyncio.ensure_future(self._read())
        self.closed = False
        #: called with a sentence when the link ends or a line cannot be used (the relay's note)
        self.said: Callable[[str], None] = lambda text: None

    @classmethod
    async def open(cls, path: Path, hello: dict[str, Any], own: Rules | None,
                   warn: Callable[[str], None] | None = None) -> BreakpointLink | None:
        """:meth:`connect` with an interceptor of its own, which starts with the tap's ``--rules`` (``own``)."""
        rules = own or Rules()
        return await cls.connect(path, hello, Interceptor(rules), rules, warn)

    @classmethod
    async def connect(cls, path: Path, hello: dict[str, Any], interceptor: Interceptor, own: Rules,
                      warn: Callable[[str], None] | None = None) -> BreakpointLink | None:
        """The link, after the window's first rules; None when no window of ours listens on ``path``. A listener
        of another user is said to ``warn`` as the tap's feed says it (it may take the only connection it
        accepts, and the feed would then not see it)."""
        if private_dir_problem(path) is not None:
            return None  # the tap's feed says why (it checks the same before it connects)
        try:
            reader, writer = await wait_for(asyncio.open_unix_connection(os.fspath(path), limit=MAX_LINE_BYTES),
                                            CONNECT_WAIT)
        except (OSError, TimeoutError):
            return None
        uid = peer_uid(writer.get_extra_info("socket"))
        if uid not in (None, os.getuid()):
            writer.close()
            if warn is not None:
                warn(f"the listener on {path} runs as another user (uid {uid}); not streaming to it")
            return None
        link = cls(reader, writer, interceptor, own)
        link._send({"type": "breakpoints", "protocol": PROTOCOL_VERSION, "name": hello.get("name", ""),
                    "pid": hello.get("pid")})
        with contextlib.suppress(TimeoutError):
            await wait_for(asyncio.shield(link._first), FIRST_RULES_WAIT)
        if link.closed:  # the listener closed the link at once: a window that has no breakpoints for taps
            await link.close()
            return None
        return link

    def _send(self, obj: dict[str, Any]) -> None:
        if not self.closed and not send_json_line(self._writer, obj):
            self._broke()

    async def pause(self, direction: str, raw: bytes, verdict: Verdict) -> Verdict:
        """The :data:`~inspector.core.intercept.transport.Pauser`: asks the window, waits for its decision."""
        if self.closed:
            return Verdict(PASS_ACTION, verdict.rule, out=raw)
        self._next += 1
        number = self._next
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[number] = (future, direction, raw, verdict.rule)
        rule = verdict.rule.number if verdict.rule is not None else 0
        theirs = rule - len(self.own.rules)  # the breakpoint's own number in the window's list (0: the tap's rule)
        self._send({"type": "paused", "id": number, "dir": direction, **_encoded(raw), "rule": rule,
                    "breakpoint": theirs if theirs > 0 else 0})
        try:
            decision = await future
        finally:
            self._waiting.pop(number, None)
        return self._verdict(decision, direction, raw, verdict.rule)

    def _verdict(self, decision: dict[str, Any], direction: str, raw: bytes, rule: Rule | None) -> Verdict:
        choice = decision.get("choice", "forward")
        edited = decision.get("edited")
        try:
            return self.interceptor.resolve(
                direction, raw, str(choice), edited=edited.encode("utf-8") if isinstance(edited, str) else None,
                code=int(decision.get("code", -32000)), message=str(decision.get("message", "")),
                ms=max(0, int(decision.get("ms", 0))), rule=rule)
        except (ValueError, TypeError):
            self.said(f"the window's decision {choice!r} on a paused message cannot be used; it went on unchanged")
            return Verdict(PASS_ACTION, rule, out=raw)

    async def _read(self) -> None:
        try:
            async for obj in json_objects(self._reader):
                self._received(obj)
        finally:
            self._broke()

    def _received(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if kind == "rules":
            try:
                theirs = parse_rules(obj.get("rules", []), "the window's breakpoints")
            except RulesError as exc:
                self.said(str(exc))
                return
            first = len(self.own.rules)
            renumbered = tuple(Rule(**{**rule.__dict__, "number": first + rule.number}) for rule in theirs.rules)
            self.interceptor.rules = Rules(self.own.rules + renumbered, self.own.source)
            self._send({"type": "in_force", "breakpoints": len(renumbered)})
            if not self._first.done():
                self._first.set_result(None)
        elif kind == "decide":
            number = obj.get("id")
            waiting = self._waiting.get(number) if isinstance(number, int) else None
            if waiting is not None and not waiting[0].done():
                waiting[0].set_result(obj)

    def _broke(self) -> None:
        """Nobody is left to decide: what waits goes on unchanged, and the window's breakpoints are gone."""
        if self.closed:
            return
        self.closed = True
        self.interceptor.rules = self.own
        for future, _direction, _raw, _rule in list(self._waiting.values()):
            if not future.done():
                future.set_result({"choice": "forward"})
        if not self._first.done():
            self._first.set_result(None)
        with contextlib.suppress(OSError, RuntimeError):
            self._writer.close()

    async def close(self) -> None:
        self._broke()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError, OSError):
            await self._task


class WindowSide:
    """The window's side of one link (what a tap tab drives): send rules and decisions, read paused messages.
    Made by the window's tap listener for a ``breakpoints`` hello (:func:`inspector.core.tap.channel.listen`'s
    ``others``)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, hello: dict[str, Any]) -> None:
        self._reader = reader
        self._writer = writer
        self.hello = hello
        #: how many ``rules`` lines the relay said it acts on (``in_force``), so far
        self.acknowledged = 0

    @property
    def pid(self) -> Any:
        return self.hello.get("pid")

    def send_rules(self, rules: list[Rule]) -> None:
        self._write({"type": "rules", "rules": [rule.to_json() for rule in rules]})

    def decide(self, number: int, choice: str, *, edited: str | None = None, code: int = -32000,
               message: str = "", ms: int = 0) -> None:
        self._write({"type": "decide", "id": number, "choice": choice, "edited": edited, "code": code,
                     "message": message, "ms": ms})

    def decide_as(self, number: int, verdict: Verdict) -> None:
        """Send the decision a verdict of the window's own queue stands for (what
        :meth:`~inspector.core.intercept.engine.Interceptor.resolve` turns back into that verdict on the relay)."""
        if verdict.action == "drop":
            self.decide(number, "drop")
        elif verdict.action == "delay":
            self.decide(number, "delay", ms=round(verdict.delay * 1000))
        elif verdict.action == "error":
            error = _error_of(verdict.answer if verdict.answer is not None else verdict.out)
            self.decide(number, "error", code=error[0], message=error[1])
        elif verdict.changed:
            self.decide(number, "forward", edited=verdict.out.decode("utf-8", errors="replace"))
        else:
            self.decide(number, "forward")

    def close(self) -> None:
        """End the window's side: the relay sends on whatever still waits, unchanged."""
        with contextlib.suppress(ConnectionError, RuntimeError, OSError):
            self._writer.close()

    def _write(self, obj: dict[str, Any]) -> None:
        send_json_line(self._writer, obj)

    async def paused(self) -> AsyncIterator[dict[str, Any]]:
        """Each ``paused`` line as a dict (its bytes: :func:`decoded`), until the relay goes away."""
        async for obj in json_objects(self._reader):
            if obj.get("type") == "in_force":
                self.acknowledged += 1
            elif obj.get("type") == "paused" and isinstance(obj.get("id"), int):
                yield obj


def _error_of(answer: bytes) -> tuple[int, str]:
    """The code and message of a JSON-RPC error answer (-32000 and "" when it has none)."""
    try:
        error = json.loads(answer).get("error", {})
        return int(error.get("code", -32000)), str(error.get("message", ""))
    except (ValueError, AttributeError, TypeError):
        return -32000, ""
