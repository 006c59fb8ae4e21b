"""A ``SKILL.md``'s YAML frontmatter, and how it differs from the frontmatter its listing gives.

The Agent Skills format (https://agentskills.io/specification): ``SKILL.md`` begins with YAML frontmatter
between two ``---`` lines. SEP-2640 makes a listing's ``frontmatter`` "a verbatim copy ... rendered as JSON", and
a host that fetched a ``SKILL.md`` "MUST parse its YAML frontmatter and compare it field-by-field against the
entry's frontmatter"; any discrepancy is a verification failure
(https://modelcontextprotocol.io/seps/2640-skills-extension#integrity-and-verification).

The YAML is read with PyYAML's safe loader (plain data only: no tags, no Python objects) that also refuses
aliases (``*name``, and so ``<<: *name`` merges): a listing's frontmatter is JSON, which has none, and nine nested
aliases of nine items each make about 500 bytes that expand to 387 million strings when rendered (the "billion
laughs"). Values are compared as JSON renders them (a YAML date is its ISO text), so a listing that renders the
same YAML compares equal. No I/O.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.events import AliasEvent
from yaml.nodes import Node


class FrontmatterError(ValueError):
    """The text has no readable frontmatter; ``str()`` is a sentence."""


class _NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing every alias (an anchor alone is harmless: nothing repeats it)."""

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]  # untyped in types-PyYAML
            raise ComposerError(None, None, f"uses the alias *{event.anchor}", event.start_mark)
        return super().compose_node(parent, index)


def split(text: str) -> tuple[dict[str, Any], str]:
    """``(frontmatter, body)`` of a SKILL.md's text. Raises :class:`FrontmatterError` when it does not begin with
    a ``---`` line, has no closing one, holds YAML that is not a mapping, uses an alias or nests too deep."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError("it does not begin with a --- line of YAML frontmatter")
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        raise FrontmatterError("its frontmatter has no closing --- line")
    try:
        data = yaml.load("".join(lines[1:end]), Loader=_NoAliasLoader)  # a SafeLoader that refuses aliases
    except ComposerError as exc:
        if exc.problem and exc.problem.startswith("uses the alias"):
            mark = exc.problem_mark
            where = f" (line {mark.line + 2})" if mark is not None else ""
            raise FrontmatterError(f"its frontmatter {exc.problem}{where}, and aliases are refused (a few hundred "
                                   "bytes of them can expand to gigabytes)") from None
        raise FrontmatterError(_invalid(exc)) from None
    except RecursionError:  # the composer recurses once per level: [[[[...]]]] thousands deep
        raise FrontmatterError("its frontmatter nests too deep to read") from None
    except yaml.YAMLError as exc:
        raise FrontmatterError(_invalid(exc)) from None
    if not isinstance(data, dict):
        raise FrontmatterError("its frontmatter is not a mapping of fields")
    return as_json(data), "".join(lines[end + 1:])


def _invalid(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + 2})" if mark is not None else ""
    return f"its frontmatter is not valid YAML{where}"


def as_json(value: Any) -> Any:
    """``value`` as JSON renders it: dates and times as ISO text, keys as text."""
    return json.loads(json.dumps(value, default=_plain, ensure_ascii=False))


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    return str(value)


def differences(parsed: dict[str, Any], listed: dict[str, Any]) -> list[str]:
    """Each field that differs between the file's frontmatter and the listing's, as a clause (``[]``: none)."""
    found = []
    for key in sorted(set(parsed) | set(listed), key=str):
        if key not in listed:
            found.append(f"{key} is in the file but not in the listing")
        elif key not in parsed:
            found.append(f"{key} is in the listing but not in the file")
        elif parsed[key] != listed[key]:
            found.append(f"{key} is {_short(parsed[key])} in the file but {_short(listed[key])} in the listing")
    return found


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit - 1] + "…"
