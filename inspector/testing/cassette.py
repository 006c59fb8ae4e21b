"""A test's exchanges compared with a cassette: an ordinary capture (``cassettes/NAME.jsonl`` beside the test
file) recorded by an earlier run.

The exchanges are the client's requests after the handshake, each with its answer, in order. Requests are
compared by method and params, answers by :func:`inspector.core.replay.diff.diff_messages` (ids are mapped,
timings are not compared); ``_meta`` anywhere and the places the user names are ignored.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.core.capture.reader import read_capture
from inspector.core.replay.diff import JsonPath, MessageDiff, clip_value, diff_messages, diff_values, parse_paths
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind

#: Always ignored: ``_meta`` anywhere (progress tokens, server timing, trace context).
ALWAYS_IGNORED = ("$.._meta",)
#: Not compared: the handshake (the server's version and instructions are not a test's result).
HANDSHAKE = frozenset({"initialize", "server/discover"})


class CassetteError(ValueError):
    """An ``--mcp-ignore`` that is not a JSON pointer or a path, or a cassette that cannot be read: one
    sentence."""


@dataclass(frozen=True)
class Exchange:
    method: str
    params: Any
    answer: dict[str, Any]


def ignore_paths(texts: list[str]) -> list[JsonPath]:
    """The places never compared: ``_meta`` and each of ``texts``, a JSON pointer into the response
    (``/result/content/0/text``, RFC 6901) or a ``$`` path of ``replay --ignore``."""
    out = parse_paths(ALWAYS_IGNORED)
    for text in texts:
        if text.startswith("$"):
            out += parse_paths([text])
        elif text.startswith("/") or text == "":
            out.append(JsonPath(text, tuple(_pointer_steps(text))))
        else:
            raise CassetteError(f"--mcp-ignore {text!r} is neither a JSON pointer (/result/...) nor a $ path")
    return out


def _pointer_steps(pointer: str) -> list[tuple[str, Any]]:
    steps: list[tuple[str, Any]] = []
    for token in pointer.split("/")[1:]:
        name = token.replace("~1", "/").replace("~0", "~")
        steps.append(("index", int(name)) if name.isdigit() and not (len(name) > 1 and name[0] == "0")
                     else ("key", name))
    return steps


def exchanges(events: list[Event]) -> list[Exchange]:
    """The client's requests after the handshake with their answers, in the order they were sent."""
    sent: dict[str, tuple[str, Any]] = {}
    order: list[str] = []
    answers: dict[str, dict[str, Any]] = {}
    for event in events:
        rpc = event.rpc
        if event.kind != Kind.MESSAGE or rpc is None or not rpc.has_id:
            continue
        key = repr(rpc.id)
        try:
            obj = event.json()
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        if event.dir == Direction.C2S and rpc.kind == jsonrpc.REQUEST and rpc.method not in HANDSHAKE:
            sent[key] = (str(rpc.method), obj.get("params"))
            order.append(key)
        elif event.dir == Direction.S2C and rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and key in sent:
            answers.setdefault(key, obj)
    return [Exchange(*sent[key], answers.get(key, {})) for key in order]


def record(capture: Path, cassette: Path) -> None:
    """The session's capture kept as the cassette."""
    cassette.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(capture, cassette)


def differences(cassette: Path, capture: Path, ignore: list[JsonPath]) -> list[str]:
    """Every difference of the session in ``capture`` from ``cassette``, one readable line each (none: the
    same). Raises :class:`CassetteError` when the cassette cannot be read."""
    try:
        old = exchanges(read_capture(cassette).events)
    except (OSError, ValueError) as exc:
        raise CassetteError(f"cannot read the cassette {cassette}: {exc}") from None
    new = exchanges(read_capture(capture).events)
    lines: list[str] = []
    for number, (was, now) in enumerate(zip(old, new, strict=False), 1):
        where = f"request {number} ({was.method})"
        request_diffs = diff_values({"method": was.method, "params": was.params},
                                    {"method": now.method, "params": now.params}, ignore_request(ignore))
        if request_diffs:
            lines += [f"{where}: the test sent a different request: {d.describe()}" for d in request_diffs]
            continue
        lines += [f"{where}: {_answer_line(d)}" for d in diff_messages(was.answer, now.answer, ignore)]
    for number, extra in enumerate(old[len(new):], len(new) + 1):
        lines.append(f"request {number} ({extra.method}): in the cassette but not sent by the test")
    for number, extra in enumerate(new[len(old):], len(old) + 1):
        lines.append(f"request {number} ({extra.method}): sent by the test but not in the cassette")
    return lines


def ignore_request(ignore: list[JsonPath]) -> list[JsonPath]:
    """Only ``_meta`` is ignored in a request (the user's paths are places in answers)."""
    return ignore[: len(ALWAYS_IGNORED)]


def _answer_line(diff: MessageDiff) -> str:
    if diff.kind == "changed":
        return f"{diff.path} was {clip_value(diff.old)} in the cassette, is {clip_value(diff.new)} now"
    if diff.kind == "added":
        return f"{diff.path}: added {clip_value(diff.new)} (not in the cassette)"
    return f"{diff.path}: removed {clip_value(diff.old)} (in the cassette)"
