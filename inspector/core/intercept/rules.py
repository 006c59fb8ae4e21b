"""Intercept rules: what a rules file (``--rules FILE``) or the window's Breakpoints panel says to do with which
messages, read and checked before anything starts.

A rules file is JSON data, never code::

    {"rules": [
      {"when": {"dir": "s2c", "method": "tools/call", "tool": "get-sum"}, "do": "rewrite",
       "set": {"/result/content/0/text": "forty-two"}},
      {"when": {"dir": "c2s", "method": "tools/list"}, "do": "delay", "ms": 800},
      {"when": {"dir": "s2c", "match": "secret"}, "do": "drop"},
      {"when": {"dir": "s2c", "method": "tools/call"}, "do": "error", "code": -32000, "message": "injected"},
      {"when": {"dir": "c2s", "method": "tools/call"}, "do": "pause"}
    ]}

``when`` (every key optional; all the given ones must hold): ``dir`` (``c2s`` or ``s2c``), ``method`` (a
response matches by the method of the request it answers), ``tool`` (``params.name`` of a ``tools/call``, or
of the request a response answers), ``match`` (a regular expression searched in the message's raw text, by the
bounded matcher of :mod:`inspector.core.schemas.patterns`: a pattern that takes too long does not match).
``do``: ``rewrite`` with ``set`` (JSON Pointer, RFC 6901, to the value put there, into the whole message),
``delay`` with ``ms``, ``drop``, ``error`` with ``code`` and ``message`` (and optional ``data``), ``pause``
(a person decides: the window only). A rule may carry ``"enabled": false`` (kept, never matches) and a
``"name"`` (shown with its number). The first enabled rule that matches acts; rules are numbered from 1 in
file order.

:func:`parse_rules` and :func:`load_rules` raise :class:`RulesError`, one sentence naming the rule and the key,
for anything they cannot honour: not JSON, an unknown key or action, a missing or mistyped value, a pointer
that is not RFC 6901, a pattern the matcher cannot read. :func:`rules_json` writes rules back in the same
shape (the panel's export).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from inspector.core.sizes import format_size

#: What ``do`` may say.
ACTIONS = ("rewrite", "delay", "drop", "error", "pause")
#: What ``when`` may hold.
WHEN_KEYS = ("dir", "method", "tool", "match")
DIRECTIONS = ("c2s", "s2c")
#: The keys each action takes besides ``when``, ``do``, ``enabled`` and ``name`` (required ones first).
ACTION_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "rewrite": (("set",), ()),
    "delay": (("ms",), ()),
    "drop": ((), ()),
    "error": (("code", "message"), ("data",)),
    "pause": ((), ()),
}
COMMON_KEYS = ("when", "do", "enabled", "name")
#: A delay longer than an hour is a mistake, not a test (and would hold the message past any client's patience).
MAX_DELAY_MS = 3_600_000
#: A rules file is a few rules; one larger than this is not one.
MAX_FILE_BYTES = 4 * 1024 * 1024


class RulesError(ValueError):
    """A rules file or rule that cannot be honoured; ``str()`` is one sentence for a person."""


@dataclass(frozen=True)
class When:
    """The conditions of a rule; None is "any"."""

    dir: str | None = None
    method: str | None = None
    tool: str | None = None
    match: str | None = None

    def to_json(self) -> dict[str, str]:
        return {key: value for key in WHEN_KEYS if (value := getattr(self, key)) is not None}

    def describe(self) -> str:
        """The conditions as a short phrase (``s2c tools/call get-sum``; ``any message``)."""
        parts = [self.dir or "", self.method or "", f"tool {self.tool}" if self.tool else "",
                 f"matching /{self.match}/" if self.match else ""]
        return " ".join(part for part in parts if part) or "any message"


@dataclass(frozen=True)
class Rule:
    """One rule: ``number`` counts from 1 in the order given."""

    number: int
    when: When
    do: str
    set: tuple[tuple[str, Any], ...] = ()  #: rewrite: (pointer, value) pairs, in the order given
    ms: int = 0  #: delay
    code: int = 0  #: error
    message: str = ""  #: error
    data: Any = None  #: error (optional)
    has_data: bool = False
    enabled: bool = True
    name: str = ""

    def label(self) -> str:
        """How the rule is named in marks and sentences: ``rule 2 (delay)``, ``rule 2 "slow list" (delay)``."""
        named = f' "{self.name}"' if self.name else ""
        return f"rule {self.number}{named} ({self.do})"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"when": self.when.to_json(), "do": self.do}
        if self.do == "rewrite":
            out["set"] = dict(self.set)
        elif self.do == "delay":
            out["ms"] = self.ms
        elif self.do == "error":
            out["code"] = self.code
            out["message"] = self.message
            if self.has_data:
                out["data"] = self.data
        if not self.enabled:
            out["enabled"] = False
        if self.name:
            out["name"] = self.name
        return out


@dataclass(frozen=True)
class Rules:
    """Rules in order; empty when none were given."""

    rules: tuple[Rule, ...] = ()
    source: str = field(default="", compare=False)  #: where they came from, for sentences

    def __bool__(self) -> bool:
        return bool(self.rules)

    @property
    def pauses(self) -> list[Rule]:
        """The enabled rules that ask a person (refused where nobody can answer)."""
        return [rule for rule in self.rules if rule.enabled and rule.do == "pause"]

    def refuse_pause(self, where: str) -> None:
        """Raise :class:`RulesError` when a rule pauses: ``where`` (``record``) has nobody to decide."""
        if self.pauses:
            rule = self.pauses[0]
            raise RulesError(f"{self._where()}rule {rule.number} pauses messages, which needs a person to "
                             f"decide; {where} runs without one (use the window's Breakpoints, or delay, drop, "
                             "error or rewrite)")

    def _where(self) -> str:
        return f"{self.source}: " if self.source else ""


def rules_json(rules: Rules | list[Rule]) -> str:
    """The rules in the rules-file shape, indented (what the panel exports, and :func:`parse_rules` reads)."""
    items = rules.rules if isinstance(rules, Rules) else rules
    return json.dumps({"rules": [rule.to_json() for rule in items]}, indent=2, ensure_ascii=False) + "\n"


def load_rules(path: Path | str) -> Rules:
    """Read and check a rules file; :class:`RulesError` with one sentence when it cannot be used."""
    where = str(path)
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            raise RulesError(f"{where}: {format_size(size)} is too large for a rules file "
                             f"(at most {format_size(MAX_FILE_BYTES)})")
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise RulesError(f"{where}: no such rules file") from None
    except IsADirectoryError:
        raise RulesError(f"{where} is a folder, not a rules file") from None
    except OSError as exc:
        raise RulesError(f"{where}: the rules file cannot be read ({exc.strerror or exc})") from None
    try:
        obj = json.loads(raw, parse_constant=_not_json)
    except UnicodeDecodeError:
        raise RulesError(f"{where}: a rules file is JSON text in UTF-8, and this is not") from None
    except ValueError as exc:
        raise RulesError(f"{where}: not JSON ({exc})") from None
    return parse_rules(obj, where)


def _not_json(name: str) -> Any:
    """NaN and Infinity, which Python's json reads and JSON has not (a rewrite could not send them on)."""
    raise ValueError(f"{name} is not a JSON number")


def parse_rules(obj: Any, source: str = "") -> Rules:
    """Check rules-file data (``{"rules": [...]}``, or the bare list) and return them."""
    where = f"{source}: " if source else ""
    if isinstance(obj, dict):
        extra = sorted(set(obj) - {"rules"})
        if extra:
            raise RulesError(f"{where}unknown key {extra[0]!r} at the top (a rules file has only \"rules\")")
        obj = obj.get("rules")
        if obj is None:
            raise RulesError(f"{where}there is no \"rules\" list")
    if not isinstance(obj, list):
        raise RulesError(f"{where}\"rules\" must be a list of rules, not {_json_type(obj)}")
    return Rules(tuple(parse_rule(item, number, where) for number, item in enumerate(obj, 1)), source)


def parse_rule(item: Any, number: int, where: str = "") -> Rule:
    """One rule, numbered ``number``; :class:`RulesError` naming it when it cannot be used."""
    at = f"{where}rule {number}"
    if not isinstance(item, dict):
        raise RulesError(f"{at} must be an object with \"when\" and \"do\", not {_json_type(item)}")
    do = item.get("do")
    if do is None:
        raise RulesError(f"{at} has no \"do\" (one of {', '.join(ACTIONS)})")
    if do not in ACTIONS:
        raise RulesError(f"{at}: unknown action {_short(do)} (one of {', '.join(ACTIONS)})")
    required, optional = ACTION_KEYS[do]
    for key in item:
        if key not in COMMON_KEYS and key not in required and key not in optional:
            raise RulesError(f"{at}: unknown key {key!r} for {_a(do)} rule")
    for key in required:
        if key not in item:
            raise RulesError(f"{at}: {_a(do)} rule needs {key!r}")
    when = parse_when(item.get("when", {}), at)
    enabled = item.get("enabled", True)
    if not isinstance(enabled, bool):
        raise RulesError(f"{at}: \"enabled\" is true or false, not {_short(enabled)}")
    name = item.get("name", "")
    if not isinstance(name, str):
        raise RulesError(f"{at}: \"name\" is text, not {_json_type(name)}")
    values: dict[str, Any] = {}
    if do == "rewrite":
        values["set"] = _pointers(item["set"], at)
    elif do == "delay":
        ms = item["ms"]
        if not isinstance(ms, int) or isinstance(ms, bool) or not 0 <= ms <= MAX_DELAY_MS:
            raise RulesError(f"{at}: \"ms\" is a whole number of milliseconds from 0 to {MAX_DELAY_MS}, "
                             f"not {_short(ms)}")
        values["ms"] = ms
    elif do == "error":
        code, message = item["code"], item["message"]
        if not isinstance(code, int) or isinstance(code, bool):
            raise RulesError(f"{at}: \"code\" is a JSON-RPC error code (a whole number), not {_short(code)}")
        if not isinstance(message, str):
            raise RulesError(f"{at}: \"message\" is text, not {_json_type(message)}")
        values.update(code=code, message=message, data=item.get("data"), has_data="data" in item)
    return Rule(number, when, do, enabled=enabled, name=name, **values)


def parse_when(when: Any, at: str) -> When:
    if not isinstance(when, dict):
        raise RulesError(f"{at}: \"when\" must be an object, not {_json_type(when)}")
    for key, value in when.items():
        if key not in WHEN_KEYS:
            raise RulesError(f"{at}: unknown condition {key!r} in \"when\" (one of {', '.join(WHEN_KEYS)})")
        if not isinstance(value, str):
            raise RulesError(f"{at}: \"when\" {key!r} is text, not {_json_type(value)}")
    direction = when.get("dir")
    if direction is not None and direction not in DIRECTIONS:
        raise RulesError(f"{at}: \"dir\" is c2s (client to server) or s2c (server to client), not {_short(direction)}")
    pattern = when.get("match")
    if pattern is not None:
        try:
            regex.compile(pattern)
        except (regex.error, OverflowError, RecursionError) as exc:
            raise RulesError(f"{at}: the pattern {_short(pattern)} cannot be read ({exc})") from None
    return When(direction, when.get("method"), when.get("tool"), pattern)


def _pointers(value: Any, at: str) -> tuple[tuple[str, Any], ...]:
    if not isinstance(value, dict) or not value:
        raise RulesError(f"{at}: \"set\" maps JSON Pointers to values ({{\"/result/content/0/text\": \"...\"}}), "
                         f"not {_short(value)}")
    for pointer in value:
        pointer_parts(pointer, at)
    return tuple(value.items())


def pointer_parts(pointer: str, at: str = "") -> list[str]:
    """An RFC 6901 pointer's reference tokens, unescaped; :class:`RulesError` when it is not one (the empty
    pointer, the whole message, is refused: a rewrite changes a part of a message)."""
    if not pointer.startswith("/"):
        raise RulesError(f"{at}: {pointer!r} is not a JSON Pointer (RFC 6901: it starts with \"/\", as in "
                         "\"/result/content/0/text\")")
    parts = pointer[1:].split("/")
    for part in parts:
        rest = part.replace("~0", "").replace("~1", "")
        if "~" in rest:
            raise RulesError(f"{at}: {pointer!r} is not a JSON Pointer (a \"~\" is written ~0, and a \"/\" inside a "
                             "name ~1)")
    return [part.replace("~1", "/").replace("~0", "~") for part in parts]


def _a(action: str) -> str:
    """``a delay``, ``an error``: the action with its article."""
    return f"{'an' if action[:1] in 'aeiou' else 'a'} {action}"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, dict) else type(value).__name__


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 40 else text[:39] + "…"
