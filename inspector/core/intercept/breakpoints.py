"""Breakpoints without a window: the rules a person keeps for one session (:class:`Breakpoints`) and the messages
they paused, each waiting for the person's decision (:class:`PausedQueue`). Qt-free: the window wraps both in a
QObject that turns their listeners into signals (:mod:`inspector.ui.intercept.control`).

Contract:

- :class:`Breakpoints` is an ordered list of rules (:mod:`inspector.core.intercept.rules`), each enabled or not,
  numbered from 1 in order. Every change gives the interceptor the new list at once (``interceptor.rules``), so
  the next message sees it, and calls each listener. A rule added by hand is checked as a rules file's rule is
  (:class:`~inspector.core.intercept.rules.RulesError`, one sentence); import replaces the list with a rules
  file's, export writes it in the same shape.
- :class:`PausedQueue` is the session's ``pauser``
  (:class:`~inspector.core.intercept.transport.InterceptingTransport`): a paused message waits in it, in the
  order it came, until :meth:`PausedQueue.decide` (forward as it came or edited, drop, answer with an error,
  delay), :meth:`PausedQueue.release_all` (the tab closes: everything goes on unchanged) or ``max_wait`` seconds
  (then it goes on unchanged too). Other messages keep flowing meanwhile: only the paused one waits.
- While a request of the session's own (or the answer it waits for) is paused, ``hold`` stops that request's
  timeout clock, as a question to the user does (:func:`inspector.core.session.server_requests.hold_clock`); it
  starts again in full once the message goes on.
- The queue knows its source only through these calls: a tap can feed another queue the same way.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from inspector.core.intercept.engine import PASS_ACTION, Interceptor, Verdict
from inspector.core.intercept.rules import Rule, Rules, RulesError, load_rules, parse_rule, rules_json

Listener = Callable[[], None]
#: Stop the clock of the request ``msg_id`` while a person decides (``why``: a clause); returns what starts it again,
#: or None when no request of that id is being waited for.
Hold = Callable[[Any, str], Callable[[], None] | None]
#: What a person may decide on a paused message.
CHOICES = ("forward", "drop", "error", "delay")


class Breakpoints:
    """A session's breakpoints in order, each enabled or not (see the module)."""

    def __init__(self, interceptor: Interceptor) -> None:
        self.interceptor = interceptor
        self._rules: list[Rule] = list(interceptor.rules.rules)
        self.listeners: list[Listener] = []

    @property
    def rules(self) -> Rules:
        """The breakpoints as rules, numbered from 1 in order."""
        return Rules(tuple(self._rules), "the Breakpoints panel")

    def __len__(self) -> int:
        return len(self._rules)

    def describe(self) -> str:
        """The breakpoints in force as one sentence, for the session's note when they change
        (``breakpoints now: rule 1 (pause) c2s tools/call tool echo; rule 2 (drop) s2c, off``)."""
        if not self._rules:
            return "breakpoints now: none"
        return "breakpoints now: " + "; ".join(f"{rule.label()} {rule.when.describe()}"
                                               + ("" if rule.enabled else ", off") for rule in self._rules)

    def add(self, item: dict[str, Any]) -> Rule:
        """Add a rule given in the rules-file shape (``{"when": {...}, "do": ...}``) at the end; raises
        :class:`RulesError` (one sentence) when it cannot be used."""
        rule = parse_rule(item, len(self._rules) + 1, "breakpoint: ")
        self._rules.append(rule)
        self._changed()
        return rule

    def remove(self, index: int) -> None:
        """Remove the rule at ``index`` (0-based); the ones after it are numbered again."""
        del self._rules[index]
        self._changed()

    def set_enabled(self, index: int, enabled: bool) -> None:
        if self._rules[index].enabled != enabled:
            self._rules[index] = replace(self._rules[index], enabled=enabled)
            self._changed()

    def load(self, path: Path | str) -> int:
        """Replace the breakpoints with a rules file's rules (its pause rules included); returns how many.
        Raises :class:`RulesError` (one sentence) and changes nothing when the file cannot be used."""
        self._rules = list(load_rules(path).rules)
        self._changed()
        return len(self._rules)

    def export(self) -> str:
        """The breakpoints as a rules file (what :meth:`load` and ``--rules`` read)."""
        return rules_json(self.rules)

    def save(self, path: Path | str) -> None:
        """Write :meth:`export` to ``path``; raises :class:`RulesError` with one sentence when it cannot."""
        try:
            Path(path).write_text(self.export(), encoding="utf-8")
        except OSError as exc:
            raise RulesError(f"{path}: the rules file cannot be written ({exc.strerror or exc})") from None

    def _changed(self) -> None:
        self._rules = [replace(rule, number=number) for number, rule in enumerate(self._rules, 1)]
        self.interceptor.rules = self.rules
        for listener in list(self.listeners):
            listener()


def when_like(direction: str, raw: bytes, *, request_method: str | None = None,
              request_tool: str | None = None) -> dict[str, str]:
    """The ``when`` of "break on messages like this one": its direction and method (a response's, its request's:
    ``request_method``), and the tool of a ``tools/call`` (a response's from ``request_tool``)."""
    when = {"dir": direction}
    obj = _parse(raw)
    method = obj.get("method") if isinstance(obj, dict) else None
    if isinstance(method, str):
        when["method"] = method
        params = obj.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        if method == "tools/call" and isinstance(name, str):
            when["tool"] = name
    elif request_method:
        when["method"] = request_method
        if request_method == "tools/call" and request_tool:
            when["tool"] = request_tool
    return when


def _parse(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


_numbers = itertools.count(1)


@dataclass(eq=False)
class Paused:
    """One paused message: its direction, its bytes as they came, the rule that paused it, when it came
    (``time.monotonic()``), and what it is (read once, for the queue's list)."""

    direction: str
    raw: bytes
    rule: Rule | None
    future: asyncio.Future[Verdict]
    since: float = field(default_factory=time.monotonic)
    number: int = field(default_factory=lambda: next(_numbers))
    method: str | None = None
    tool: str | None = None
    msg_id: Any = None
    kind: str = "message"  #: request, response, notification or message
    released: Callable[[], None] | None = None  #: starts the held request's clock again
    timer: asyncio.TimerHandle | None = None  #: the maximum wait

    def __post_init__(self) -> None:
        obj = _parse(self.raw)
        if not isinstance(obj, dict):
            return
        method = obj.get("method")
        if isinstance(method, str):
            self.method = method
            self.kind = "request" if "id" in obj else "notification"
            params = obj.get("params")
            name = params.get("name") if isinstance(params, dict) else None
            self.tool = name if method == "tools/call" and isinstance(name, str) else None
        elif "id" in obj and ("result" in obj or "error" in obj):
            self.kind = "response"
        self.msg_id = obj.get("id")

    def title(self) -> str:
        """``→ request tools/call echo #3`` (the arrow: to the server →, to the client ←)."""
        arrow = "→" if self.direction == "c2s" else "←"
        what = " ".join(part for part in (self.kind, self.method or "", self.tool or "") if part)
        msg_id = f" #{json.dumps(self.msg_id, ensure_ascii=False)}" if self.msg_id is not None else ""
        return f"{arrow} {what}{msg_id}"

    def waited(self) -> float:
        return time.monotonic() - self.since


class DecisionError(ValueError):
    """A decision that cannot be carried out (edited text that is no JSON); ``str()`` is one sentence."""


class PausedQueue:
    """The paused messages of one source, oldest first; its ``__call__`` is the source's pauser (see the module)."""

    def __init__(self, interceptor: Interceptor, *, hold: Hold | None = None, max_wait: float | None = None) -> None:
        self.interceptor = interceptor
        self.hold = hold
        #: seconds a message may stay paused before it goes on unchanged (None: until the person decides)
        self.max_wait = max_wait
        self.items: list[Paused] = []
        self.listeners: list[Listener] = []
        #: messages sent on after a decision whose callers have not resumed yet (:meth:`settled`)
        self._resuming = 0

    def __len__(self) -> int:
        return len(self.items)

    async def __call__(self, direction: str, raw: bytes, verdict: Verdict) -> Verdict:
        """A message paused by ``verdict``'s rule: it waits here for the person's decision, returned as a verdict."""
        item = Paused(direction, raw, verdict.rule, asyncio.get_running_loop().create_future())
        if self.hold is not None and item.msg_id is not None and (
                (direction == "c2s" and item.kind == "request") or (direction == "s2c" and item.kind == "response")):
            rule = verdict.rule.label() if verdict.rule is not None else "a breakpoint"
            item.released = self.hold(item.msg_id, f"paused at {rule}")
        if self.max_wait is not None:
            item.timer = asyncio.get_running_loop().call_later(self.max_wait, self._expired, item)
        self.items.append(item)
        self._changed()
        try:
            return await item.future
        finally:
            if item.future.done() and not item.future.cancelled():
                self._resuming -= 1
            self._forget(item)

    def decide(self, item: Paused, choice: str, *, edited: bytes | None = None, code: int = -32000,
               message: str = "", ms: int = 0) -> None:
        """The person's decision on ``item``: ``forward`` (``edited``, if given, goes instead), ``drop``, ``error``
        (``code``, ``message``) or ``delay`` (``ms``). Raises :class:`DecisionError` with one sentence when it
        cannot be carried out (then the message stays paused)."""
        if choice not in CHOICES:
            raise DecisionError(f"unknown decision {choice!r} (one of {', '.join(CHOICES)})")
        if item.future.done():
            raise DecisionError("that message was already decided on")
        if edited is not None:
            edited = _compact(edited)
            if _parse(edited) == _parse(item.raw):
                edited = None  # the same message: it goes on byte for byte as it came
        if choice == "error" and item.kind not in ("request", "response"):
            raise DecisionError(f"only a request or a response can be answered with an error; this is a {item.kind}")
        if choice == "delay" and not 0 <= ms <= 3_600_000:
            raise DecisionError("a delay is a whole number of milliseconds from 0 to 3600000")
        verdict = self.interceptor.resolve(item.direction, item.raw, choice, edited=edited, code=code,
                                           message=message, ms=ms, rule=item.rule)
        self._settle(item, verdict)

    def release_all(self) -> int:
        """Send every paused message on as it came (the tab closes); returns how many there were."""
        items = [item for item in self.items if not item.future.done()]
        for item in items:
            self._settle(item, Verdict(PASS_ACTION, item.rule, out=item.raw))
        return len(items)

    async def settled(self, timeout: float = 2.0) -> None:
        """Wait (at most ``timeout`` seconds) until every message decided on has been handed back to its source,
        and one more turn of the loop for the source to send it on."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self._resuming > 0 and loop.time() < end:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0)

    def _settle(self, item: Paused, verdict: Verdict) -> None:
        self._resuming += 1
        item.future.set_result(verdict)
        self._forget(item)

    def _expired(self, item: Paused) -> None:
        if not item.future.done():
            self._settle(item, Verdict(PASS_ACTION, item.rule, out=item.raw))

    def _forget(self, item: Paused) -> None:
        """``item`` no longer waits (decided, or its source went away): its clock runs again, it leaves the list."""
        if item.timer is not None:
            item.timer.cancel()
            item.timer = None
        if item.released is not None:
            item.released()
            item.released = None
        if item in self.items:
            self.items.remove(item)
            self._changed()

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()


def _compact(text: bytes) -> bytes:
    """Edited JSON as one compact line (a line-framed transport cannot carry a newline inside a message)."""
    try:
        obj = json.loads(text)
    except UnicodeDecodeError:
        raise DecisionError("the edited message is not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise DecisionError(f"the edited message is not JSON ({exc}); fix it, or forward the message as it came") \
            from None
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
