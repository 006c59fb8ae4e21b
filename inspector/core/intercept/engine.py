"""The intercept engine: for each message on its way, what the rules say to do with it. Sans-io: it is given a
message's bytes and a direction, and answers with a :class:`Verdict`; its hosts (the session's transport
wrapper, :mod:`inspector.core.intercept.transport`; the stdio and HTTP taps; ``serve``) move the bytes, keep the
time and record the marks (:mod:`inspector.core.wire.intercepted`).

Contract:

- :meth:`Interceptor.decide` is called once per message, in the order the messages came in their direction, for
  every message (a response matches ``method`` and ``tool`` by the request it answers, which the engine
  remembers from when it went by, at most :data:`MAX_PENDING` of them a direction).
- With no enabled rule it returns :data:`PASS` without reading the message. With rules, every message is parsed
  once (``orjson``, ``json`` for what orjson refuses); a message that is no JSON is matched by ``dir`` and
  ``match`` only. A batch (a JSON array) is matched by ``dir`` and ``match`` only, and a rewrite's pointer
  starts at the array (``/0/result/...``).
- The first enabled rule whose conditions all hold acts. ``rewrite`` puts each value at its pointer (a member is
  added to an object; an array index must exist, or be its length or ``-`` to append): when one pointer cannot
  apply, nothing is changed and the verdict says why (``note``). ``error`` on a request holds it (``out`` is
  empty) and answers its sender (``answer``); on a response it replaces it with the error; on a notification
  it cannot act (``note``). ``pause`` leaves the decision to the host (:meth:`Interceptor.resolve`).
- The engine never chooses where bytes go: ``out`` goes to the message's own peer, ``answer`` back to its sender.
  Nothing in a rule runs as code; a ``match`` pattern runs in the bounded matcher.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

import orjson

from inspector.core.intercept.rules import Rule, Rules, pointer_parts
from inspector.core.schemas import patterns
from inspector.core.wire.ids import IdKey, id_key

#: Requests remembered a direction for matching their responses (the oldest are forgotten past it).
MAX_PENDING = 65_536

PASS_ACTION = "pass"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What to do with one message.

    ``action`` is ``pass`` or the acting rule's ``do`` (``pause`` until the host resolves it). ``out`` is what
    goes on to the message's peer (the message itself, changed or not; empty: nothing goes on). ``answer`` is
    what goes back to its sender instead (an error answer to a held request). ``delay`` is in seconds. ``note``
    is a sentence when the rule matched and could not do what it says (the message then goes on unchanged).
    ``changed`` says that ``out`` differs from the message.
    """

    action: str
    rule: Rule | None = None
    out: bytes = b""
    answer: bytes | None = None
    delay: float = 0.0
    note: str | None = None
    changed: bool = False

    @property
    def passes(self) -> bool:
        return self.action == PASS_ACTION


#: The verdict for a message no rule matched; ``out`` is filled by :meth:`Interceptor.decide`.
PASS = Verdict(PASS_ACTION)


class _Message:
    """What matching needs of one message, read once."""

    __slots__ = ("obj", "fast", "method", "tool", "is_request", "is_response", "id")

    def __init__(self, obj: Any, fast: bool = False) -> None:
        self.obj = obj
        self.fast = fast  #: orjson read it, and may write it back
        self.method: str | None = None
        self.tool: str | None = None
        self.is_request = self.is_response = False
        self.id: Any = None
        if isinstance(obj, dict):
            method = obj.get("method")
            if isinstance(method, str):
                self.method = method
                self.is_request = "id" in obj
                if method == "tools/call":
                    params = obj.get("params")
                    name = params.get("name") if isinstance(params, dict) else None
                    self.tool = name if isinstance(name, str) else None
            elif "id" in obj and ("result" in obj or "error" in obj):
                self.is_response = True
            self.id = obj.get("id")


_UNREAD = _Message(None)


def _read(raw: bytes) -> _Message:
    return _Message(*_parse(raw))


#: The deepest message read: orjson's own bound (since 3.9.15, the version pyproject.toml asks for), and ours for
#: what ``json`` reads in its place, which reads as deep as the interpreter's recursion limit lets it (a limit some
#: libraries raise at run time): the verdict on a deep message is the same in every process.
MAX_READ_DEPTH = 1024
#: The deepest message written back. ``json`` writes what orjson will not (past 254 levels) one C stack frame a
#: level, against the interpreter's recursion limit (1,000 by default): a bound of our own, for the same reason.
MAX_WRITE_DEPTH = 800
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 19


def _parse(raw: bytes) -> tuple[Any, bool]:
    """The message as ``json.loads`` reads it (None: not JSON), and whether orjson read it (then orjson can write
    it back exactly: no NaN, no lone surrogate, no integer past 64 bits in it). orjson turns an integer past 64
    bits into a float (a rewrite would then send ``1.2e+29`` for the id the client gave), so a message with a run
    of 19 or more digits anywhere is read by ``json`` (as :func:`inspector.core.present.json_tree.parse` does)."""
    if raw.translate(_DIGITS_AS_ZERO).find(_LONG_DIGITS) < 0:  # a C pass each
        try:
            return orjson.loads(raw), True
        except orjson.JSONDecodeError:
            pass  # not JSON, or NaN, a lone surrogate, or past MAX_READ_DEPTH: json says which
    try:  # what orjson refuses and json reads: NaN, lone surrogates
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return None, False
    # json reads past MAX_READ_DEPTH only under a recursion limit raised above it: walk the message only then
    if sys.getrecursionlimit() > MAX_READ_DEPTH and _deeper_than(obj, MAX_READ_DEPTH):
        return None, False
    return obj, False


def _encode(obj: Any, fast: bool = False) -> bytes:
    """``obj`` as compact JSON in UTF-8: by orjson when ``fast`` (a message orjson read: 20 times quicker than
    json for one of many small members), else by json; text that UTF-8 cannot hold (a lone surrogate, which
    JSON's ``\\ud800`` escape can carry) is written escaped."""
    if fast:
        try:
            return orjson.dumps(obj)
        except (orjson.JSONEncodeError, TypeError):  # a value of the rule's past what orjson writes
            pass
    if _deeper_than(obj, MAX_WRITE_DEPTH):
        raise RecursionError(f"nested deeper than {MAX_WRITE_DEPTH} levels")
    try:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj, separators=(",", ":")).encode("ascii")


def _deeper_than(obj: Any, limit: int) -> bool:
    """Whether ``obj`` nests arrays and objects more than ``limit`` deep (a walk without recursion)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return False


def error_answer(msg_id: Any, code: int, message: str, data: Any = None, has_data: bool = False) -> bytes:
    """A JSON-RPC error response to ``msg_id``."""
    error: dict[str, Any] = {"code": code, "message": message}
    if has_data:
        error["data"] = data
    try:
        return _encode({"jsonrpc": "2.0", "id": msg_id, "error": error})
    except RecursionError:  # an id (an invalid one: an array) nested deeper than json writes: JSON-RPC's unknown id
        return _encode({"jsonrpc": "2.0", "id": None, "error": error})


class RewriteFailed(ValueError):
    """A pointer that cannot apply to this message; ``str()`` is a clause (``/result/x is not in this message``)."""


def rewritten(obj: Any, pairs: tuple[tuple[str, Any], ...]) -> Any:
    """``obj`` with each value put at its pointer (``obj`` is changed in place and returned); raises
    :class:`RewriteFailed` when a pointer does not lead into the message."""
    for pointer, value in pairs:
        parts = pointer_parts(pointer)
        parent = obj
        for depth, token in enumerate(parts[:-1]):
            parent = _step(parent, token, pointer, parts[:depth + 1])
        last = parts[-1]
        if isinstance(parent, dict):
            parent[last] = value
        elif isinstance(parent, list):
            if last == "-" or last == str(len(parent)):
                parent.append(value)
            elif last.isdigit() and (last == "0" or not last.startswith("0")) and int(last) < len(parent):
                parent[int(last)] = value
            else:
                raise RewriteFailed(f"{pointer} points past the end of a list of {len(parent)}")
        else:
            raise RewriteFailed(f"{pointer} goes into {_kind(parent)}, which has no members")
    return obj


def _step(node: Any, token: str, pointer: str, walked: list[str]) -> Any:
    if isinstance(node, dict) and token in node:
        return node[token]
    if isinstance(node, list) and token.isdigit() and (token == "0" or not token.startswith("0")) \
            and int(token) < len(node):
        return node[int(token)]
    where = "/" + "/".join(walked)
    return _missing(f"{pointer} is not in this message (it has no {where})")


def _missing(clause: str) -> Any:
    raise RewriteFailed(clause)


def _kind(value: Any) -> str:
    return "null" if value is None else "a string" if isinstance(value, str) else "a number" \
        if isinstance(value, (int, float)) else type(value).__name__


class Interceptor:
    """Decides each message's fate by :class:`~inspector.core.intercept.rules.Rules` (see the module)."""

    def __init__(self, rules: Rules | None = None) -> None:
        self._pending: dict[str, dict[IdKey, tuple[str | None, str | None]]] = {"c2s": {}, "s2c": {}}
        self.rules = rules or Rules()

    @property
    def rules(self) -> Rules:
        return self._rules

    @rules.setter
    def rules(self, rules: Rules) -> None:
        """Rules may change at any time (the window's Breakpoints panel); the next message sees the new ones."""
        self._rules = rules
        self._active = tuple(rule for rule in rules.rules if rule.enabled)
        #: rules that need nothing but the direction and the raw text
        self._needs_parse = any(rule.when.method or rule.when.tool or rule.do in ("rewrite", "error")
                                for rule in self._active)

    @property
    def active(self) -> bool:
        """Whether any rule is enabled (hosts that can skip framing when none is, do)."""
        return bool(self._active)

    def decide(self, direction: str, raw: bytes) -> Verdict:
        """The verdict for one message (``raw``: its bytes without the line terminator) going ``direction``."""
        if not self._active:
            return Verdict(PASS_ACTION, out=raw)
        message = _read(raw) if self._needs_parse else _UNREAD
        method, tool = message.method, message.tool
        if message.is_request:
            self._remember(direction, message)
        elif message.is_response:
            method, tool = self._pending["s2c" if direction == "c2s" else "c2s"].pop(
                id_key(message.id), (None, None))
        text: str | None = None
        for rule in self._active:
            when = rule.when
            if when.dir is not None and when.dir != direction:
                continue
            if when.method is not None and when.method != method:
                continue
            if when.tool is not None and when.tool != tool:
                continue
            if when.match is not None:
                if text is None:
                    text = raw.decode("utf-8", errors="replace")
                if not patterns.search(when.match, text):
                    continue
            verdict = self._act(rule, raw, message)
            if message.is_request and not verdict.out:  # held or dropped: its peer will never answer it
                self.forget(direction, message.id)
            return verdict
        return Verdict(PASS_ACTION, out=raw)

    def forget(self, direction: str, msg_id: Any) -> None:
        """A request that will never be answered through here (held, dropped): stop remembering it."""
        self._pending[direction].pop(id_key(msg_id), None)

    def _remember(self, direction: str, message: _Message) -> None:
        pending = self._pending[direction]
        if len(pending) >= MAX_PENDING:
            del pending[next(iter(pending))]
        pending[id_key(message.id)] = (message.method, message.tool)

    def _act(self, rule: Rule, raw: bytes, message: _Message) -> Verdict:
        if rule.do == "drop":
            return Verdict("drop", rule)
        if rule.do == "delay":
            return Verdict("delay", rule, out=raw, delay=rule.ms / 1000)
        if rule.do == "pause":
            return Verdict("pause", rule, out=raw)
        if rule.do == "error":
            return self._error(rule, raw, message)
        return self._rewrite(rule, raw, message)

    def _rewrite(self, rule: Rule, raw: bytes, message: _Message) -> Verdict:
        if message.obj is None:
            return Verdict("rewrite", rule, out=raw, note="the message is not JSON (or is nested too deeply to read), "
                                                          "so there is nothing to point into")
        try:
            out = _encode(rewritten(message.obj, rule.set), message.fast)
        except RewriteFailed as exc:
            return Verdict("rewrite", rule, out=raw, note=f"{exc}; it went on unchanged")
        except RecursionError:  # read (orjson reads 1,024 levels), but deeper than json writes
            return Verdict("rewrite", rule, out=raw, note="the message is nested too deeply to write back; it went on "
                                                          "unchanged")
        return Verdict("rewrite", rule, out=out, changed=out != raw)

    def _error(self, rule: Rule, raw: bytes, message: _Message) -> Verdict:
        answer = error_answer(message.id, rule.code, rule.message, rule.data, rule.has_data)
        if message.is_request:
            return Verdict("error", rule, answer=answer)
        if message.is_response:
            return Verdict("error", rule, out=answer, changed=True)
        what = "a notification, which has no answer" if message.method else "no request or response"
        return Verdict("error", rule, out=raw, note=f"it matched {what} to replace; it went on unchanged")

    def resolve(self, direction: str, raw: bytes, choice: str, *, edited: bytes | None = None,
                code: int = -32000, message: str = "", ms: int = 0, rule: Rule | None = None) -> Verdict:
        """A person's decision on a paused message, as a verdict: ``forward`` (as it came, or ``edited``),
        ``drop``, ``error`` (``code`` and ``message``: a request is held and answered, a response replaced) or
        ``delay`` (``ms``, then as it came)."""
        if choice == "forward":
            if edited is not None and edited != raw:
                return Verdict("rewrite", rule, out=edited, changed=True)
            return Verdict(PASS_ACTION, rule, out=raw)
        if choice == "delay":
            return Verdict("delay", rule, out=raw, delay=ms / 1000)
        if choice not in ("drop", "error"):
            raise ValueError(f"unknown decision {choice!r}")
        parsed = _read(raw)
        if parsed.is_request:  # held or dropped: its peer will never answer it
            self.forget(direction, parsed.id)
        if choice == "drop":
            return Verdict("drop", rule)
        answer = error_answer(parsed.id, code, message)
        if parsed.is_request:
            return Verdict("error", rule, answer=answer)
        if parsed.is_response:
            return Verdict("error", rule, out=answer, changed=True)
        return Verdict(PASS_ACTION, rule, out=raw, note="only a request or a response can be answered with an "
                       "error; it went on unchanged")
