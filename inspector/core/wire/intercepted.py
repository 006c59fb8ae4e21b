"""How a capture marks a message an intercept rule or breakpoint acted on (``data["intercept"]``).

Part of the capture format (docs/capture-format.md), like :class:`~inspector.core.wire.events.NoteKey`: the
keys and roles never change. The mark is an object::

    {"rule": 2, "action": "rewrite", "role": "changed", "name": "..."}

``rule`` is the rule's number (from 1, in the order of its rules file or Breakpoints panel; 0 for a decision a
person made on a paused message without a rule's action, or for the inspector's own change named by ``by``:
``"reload"``, ``tap --watch`` declaring ``listChanged`` in the server's answer to the client's handshake),
``action`` what it did (``rewrite``, ``delay``, ``drop``, ``error``, ``pause``), ``role`` what this event is in it:

- ``original``: the message as its sender sent it, which its peer never got: the ``changed`` event that follows
  it (same direction) went in its place. Not paired with a request or answer.
- ``changed``: what went to the peer in place of the ``original`` before it.
- ``dropped``: sent, and never given to its peer. Not paired. With ``note`` when a rule did not mean to drop it
  (a delayed or paused message still held when the session ended).
- ``held``: a request not forwarded: the inspector answered it itself (the ``answer`` event, the other way).
- ``answer``: the inspector's JSON-RPC error answer to a ``held`` request.
- ``delayed``: given to its peer ``ms`` milliseconds after it came; ``arrived`` is when it came (seconds since the
  session started, as ``t``), and the event's own ``t`` is when it went on.
- ``unchanged``: a rule matched and could not act (a pointer that is not in this message, an error rule on a
  notification); ``note`` says why, and the message went on as it was.

A pause resolved by a person adds ``"paused": SECONDS`` (how long it waited) to the mark of what it became.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The key of the mark in an event's ``data``.
MARK = "intercept"

ORIGINAL = "original"
CHANGED = "changed"
DROPPED = "dropped"
HELD = "held"
ANSWER = "answer"
DELAYED = "delayed"
UNCHANGED = "unchanged"
ROLES = (ORIGINAL, CHANGED, DROPPED, HELD, ANSWER, DELAYED, UNCHANGED)
#: ``by``: the inspector's own change, not a rule's or a person's: ``tap --watch`` (its reload on save).
RELOAD = "reload"
#: Roles of messages their peer never got: recorded, never paired.
UNDELIVERED = frozenset({ORIGINAL, DROPPED})
#: Roles of messages that did not cross the server's side of the wire, by direction: the server never got these
#: client messages (held back or changed on the way), and never sent these (the inspector made them).
NOT_SERVERS = {"c2s": frozenset({ORIGINAL, DROPPED, HELD}), "s2c": frozenset({CHANGED, ANSWER})}


def mark(rule: int, action: str, role: str, **extra: Any) -> dict[str, Any]:
    """A mark for ``data["intercept"]`` (extra keys: ``name``, ``ms``, ``arrived``, ``note``, ``paused``, ``by``)."""
    return {"rule": rule, "action": action, "role": role, **{k: v for k, v in extra.items() if v is not None}}


def mark_of(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The intercept mark in an event's data, or None."""
    found = data.get(MARK)
    return found if isinstance(found, Mapping) else None


def delivered(data: Mapping[str, Any]) -> bool:
    """Whether the message these data belong to reached its peer (false for ``original`` and ``dropped``)."""
    found = data.get(MARK)
    return not (isinstance(found, Mapping) and found.get("role") in UNDELIVERED)


def servers(direction: str | None, data: Mapping[str, Any]) -> bool:
    """Whether the server got (``c2s``) or sent (``s2c``) the message these data belong to: what a replay sends
    again and compares with (false for what a rule held back from the server or made in its place)."""
    found = data.get(MARK)
    return not (isinstance(found, Mapping) and found.get("role") in NOT_SERVERS.get(direction or "", ()))


def rule_label(found: Mapping[str, Any]) -> str:
    """``rule 2 (rewrite)``, ``rule 2 "slow list" (delay)``, or ``a breakpoint`` for a person's own decision."""
    number = found.get("rule")
    if found.get("by") == RELOAD:
        return "tap --watch"
    if not number:
        return "a breakpoint"
    name = f' "{found["name"]}"' if found.get("name") else ""
    return f"rule {number}{name} ({found.get('action', '?')})"


def describe(found: Mapping[str, Any]) -> str:
    """The mark as a clause a person reads beside the message (``changed by rule 1 (rewrite)``)."""
    role = found.get("role")
    label = rule_label(found)
    paused = found.get("paused")
    waited = f", after a pause of {paused:.1f} s" if isinstance(paused, (int, float)) else ""
    if role == ORIGINAL:
        return f"original, never delivered: {label} changed it (the next message went instead){waited}"
    if role == CHANGED:
        return f"changed by {label}{waited}"
    if role == DROPPED:
        note = found.get("note")
        return f"dropped by {label}: never delivered{waited}" + (f" ({note})" if note else "")
    if role == HELD:
        return f"held by {label}: never reached its peer, the inspector answered it{waited}"
    if role == ANSWER:
        return f"the inspector's answer, by {label}{waited}"
    if role == DELAYED:
        ms = found.get("ms")
        delay = f"{ms} ms" if isinstance(ms, int) else "a while"
        return f"delayed {delay} by {label}{waited}"
    if role == UNCHANGED:
        note = found.get("note")
        return f"{label} matched and changed nothing" + (f": {note}" if note else "")
    return f"marked by {label}"


def short(found: Mapping[str, Any]) -> str:
    """One word for a column or a badge: ``original``, ``changed``, ``dropped``, ``held``, ``injected``,
    ``delayed``, ``matched``."""
    role = found.get("role")
    return {ANSWER: "injected", UNCHANGED: "matched"}.get(str(role), str(role))
