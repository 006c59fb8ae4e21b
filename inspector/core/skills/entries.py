"""A skill entry of ``skills/list`` or ``skills/get`` (SEP-2640), read and judged before anything is loaded.

An entry is ``{"uri": ".../SKILL.md", "frontmatter": {...}, "resources": [{uri, digest, size}, ...] | "dynamic"}``
(https://modelcontextprotocol.io/seps/2640-skills-extension#enumeration-via-skillslist). :func:`entry_of` makes a
:class:`SkillEntry` of one and says what is wrong with it (:attr:`SkillEntry.problem`): no ``uri``, a
``frontmatter`` that is not an object or lacks ``name`` or ``description``, ``resources`` missing or neither an
array nor ``"dynamic"`` ("hosts MUST NOT load it"), a file whose digest is not ``sha256:`` and 64 lowercase hex
digits or whose size is not a byte count, no entry for ``SKILL.md`` itself, a skill path whose last segment is
not the skill's name, a file outside the skill's directory (:func:`outside`: a dot segment in any spelling
counts as outside), or a skill over the limits every host accepts (512 files, 16 MiB). An entry with a problem
is shown, never loaded. No I/O.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

#: The limits every conforming host accepts (SEP-2640 "Limits"); a skill over them is declined with a sentence.
MAX_FILES = 512
MAX_TOTAL_BYTES = 16 * 1024 * 1024
DYNAMIC = "dynamic"
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
#: How many rounds of percent-decoding a URI's path gets before its segments are judged (``%252e`` is ``%2e``
#: after one round and ``.`` after two; a server or a proxy may decode more than once).
_DECODE_ROUNDS = 4


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill as its entry lists it: its URI, ``sha256:`` digest and size in bytes."""

    uri: str
    digest: str
    size: int


@dataclass(frozen=True)
class SkillEntry:
    """One skill as a listing names it. ``files`` is None for a skill whose resources are ``"dynamic"``."""

    uri: str
    frontmatter: dict[str, Any]
    files: tuple[SkillFile, ...] | None
    problem: str | None = None  #: why it cannot be loaded (None: it can)
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def name(self) -> str:
        name = self.frontmatter.get("name")
        return name if isinstance(name, str) else ""

    @property
    def description(self) -> str:
        text = self.frontmatter.get("description")
        return text if isinstance(text, str) else ""

    @property
    def root(self) -> str:
        """The skill's directory: its URI without ``/SKILL.md`` (no trailing slash)."""
        return self.uri[:-len("/SKILL.md")] if self.uri.endswith("/SKILL.md") else self.uri.rsplit("/", 1)[0]

    @property
    def dynamic(self) -> bool:
        return self.files is None

    def file(self, uri: str) -> SkillFile | None:
        """The listed file ``uri``, or None when the entry does not list it."""
        return next((f for f in self.files or () if f.uri == uri), None)

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files or ())


def entry_of(value: Any) -> SkillEntry:
    """The entry ``value`` of a listing, with its problem if it has one (never raises)."""
    raw = value if isinstance(value, dict) else {}
    uri = raw.get("uri")
    frontmatter = raw.get("frontmatter")
    resources = raw.get("resources")
    if not isinstance(uri, str) or not uri:
        return SkillEntry(str(uri or ""), _dict(frontmatter), None, "the entry has no uri", raw)
    if not isinstance(frontmatter, dict):
        return SkillEntry(uri, {}, None, "its frontmatter is not an object", raw)
    missing = [k for k in ("name", "description") if not isinstance(frontmatter.get(k), str)]
    if missing:
        return SkillEntry(uri, frontmatter, None, f"its frontmatter has no {' or '.join(missing)}", raw)
    if resources == DYNAMIC:
        return SkillEntry(uri, frontmatter, None, _path_problem(uri, frontmatter["name"]), raw)
    if not isinstance(resources, list):
        what = "no resources" if resources is None else "resources that are neither a list nor \"dynamic\""
        return SkillEntry(uri, frontmatter, None, f"the entry has {what}", raw)
    files: list[SkillFile] = []
    for item in resources:
        file, problem = _file_of(item)
        if problem is not None:
            return SkillEntry(uri, frontmatter, tuple(files), problem, raw)
        assert file is not None
        files.append(file)
    entry = SkillEntry(uri, frontmatter, tuple(files), None, raw)
    return SkillEntry(uri, frontmatter, tuple(files), _problem(entry), raw)


def _file_of(item: Any) -> tuple[SkillFile | None, str | None]:
    if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
        return None, "a file of its resources has no uri"
    uri, digest, size = item["uri"], item.get("digest"), item.get("size")
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        return None, f"the digest of {uri} is not sha256: and 64 lowercase hex digits"
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return None, f"the size of {uri} is not a number of bytes"
    return SkillFile(uri, digest, size), None


def _problem(entry: SkillEntry) -> str | None:
    files = entry.files or ()
    if entry.file(entry.uri) is None:
        return f"its resources do not list {entry.uri} itself"
    if len(files) > MAX_FILES:
        return f"it has {len(files)} files, more than the {MAX_FILES} every host accepts"
    if entry.total_bytes > MAX_TOTAL_BYTES:
        return f"its files come to {entry.total_bytes:,} bytes, more than the 16 MiB every host accepts"
    if dot_segment(entry.uri):
        return "its uri has a dot segment (. or ..), so its directory is not where it seems"
    for file in files:
        problem = outside(file.uri, entry.root) if file.uri != entry.uri else None
        if problem is not None:
            return f"its resources list {file.uri}, which {problem}"
    return _path_problem(entry.uri, entry.name)


def outside(uri: str, root: str) -> str | None:
    """Why the file ``uri`` is not in the skill's directory ``root`` (None: it is): it does not begin with
    ``root/``, or its path below it has a dot segment (``..`` or ``.``) in any spelling, which a server resolving
    the path would follow out of the directory (``skill://a/../../etc/passwd`` begins with ``skill://a/``)."""
    if not uri.startswith(root + "/"):
        return f"is not in the skill's directory {root}"
    if dot_segment(uri[len(root) + 1:]):
        return f"has a dot segment (. or .. in some spelling), so it may not be in the skill's directory {root}"
    return None


def dot_segment(path: str) -> bool:
    """Whether ``path`` (or a whole URI, its scheme aside) has a segment that is ``.`` or ``..`` once
    percent-decoded (up to :data:`_DECODE_ROUNDS` times), with backslashes read as slashes and compatibility
    characters folded (NFKC: a fullwidth full stop is a dot). ``;``, ``?`` and ``#`` also end a segment here:
    a server may not treat them as a URI parser does."""
    decoded = path
    for _round in range(_DECODE_ROUNDS):
        once = unquote(decoded)
        if once == decoded:
            break
        decoded = once
    decoded = decoded.split("://", 1)[-1]
    folded = unicodedata.normalize("NFKC", decoded).replace("\\", "/")
    return any(segment in (".", "..") for segment in re.split(r"[/?#;]", folded))


def _path_problem(uri: str, name: str) -> str | None:
    """The last segment of the skill's path must be its name (SEP-2640 "Resource Mapping")."""
    if not uri.endswith("/SKILL.md"):
        return f"its uri {uri} does not end in /SKILL.md"
    last = uri[:-len("/SKILL.md")].rsplit("/", 1)[-1]
    if last != name:
        return f"its path ends in {last!r}, not in its name {name!r}"
    return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
