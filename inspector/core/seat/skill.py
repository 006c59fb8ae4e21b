"""The seat's Skill (``skills/debug-mcp-server/SKILL.md``, shipped in the package): its entry for the Skills
extension (``io.modelcontextprotocol/skills``, SEP-2640), its text, and a copy written to a folder for agents
that load skills from disk (``mcp-inspector skill-file``)."""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path
from typing import Any

from inspector.core.skills.frontmatter import split

SKILL_NAME = "debug-mcp-server"
SKILL_URI = f"skill://{SKILL_NAME}/SKILL.md"


def skill_bytes() -> bytes:
    """The SKILL.md as shipped."""
    return resources.files("inspector.core.seat").joinpath("skills", SKILL_NAME, "SKILL.md").read_bytes()


def skill_entry() -> dict[str, Any]:
    """The skill's entry in ``skills/list``: its URI, the file's frontmatter, and its one file's digest and size
    (so a host verifies what it reads)."""
    data = skill_bytes()
    frontmatter, _body = split(data.decode("utf-8"))
    return {"uri": SKILL_URI, "frontmatter": frontmatter,
            "resources": [{"uri": SKILL_URI, "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
                           "size": len(data)}]}


def write_skill(folder: Path) -> Path:
    """Write ``FOLDER/debug-mcp-server/SKILL.md`` (folders made as needed) and return its path."""
    path = folder / SKILL_NAME / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(skill_bytes())
    return path
