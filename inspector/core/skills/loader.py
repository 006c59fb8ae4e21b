"""Skills over the session: list them, and load one the way SEP-2640 says a host must.

* :func:`list_skills`: ``skills/list``, every page (https://modelcontextprotocol.io/seps/2640-skills-extension
  #enumeration-via-skillslist); reads no skill file ("Hosts MUST NOT retrieve a skill's files ahead of need:
  not on connection, not on listing").
* :func:`get_skill`: ``skills/get`` for one skill's URI (a skill the listing left out).
* :class:`SkillLoad`: a skill being loaded from its entry. :meth:`SkillLoad.open` reads ``SKILL.md`` with
  ``resources/read`` and verifies it: its size, then its ``sha256`` digest, then its YAML frontmatter field by
  field against the entry's; only then is the skill loaded. :meth:`SkillLoad.read` reads one supporting file when
  it is asked for (never before), only a file the entry lists, and verifies its size and digest. The first
  failure is a :class:`SkillVerificationError` (one sentence) and the load stops for good: nothing more is read
  from that skill. A skill whose resources are ``"dynamic"`` is loaded unverified (its frontmatter is still
  compared), and its files are whatever the server says.
* :func:`read_directory`: ``resources/directory/read`` of a directory, only with a server that declares
  ``directoryRead``.

Everything goes through the session, so each read is a row of the timeline. No Qt.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass, field
from typing import Any

from inspector.core.protocol.extensions import SKILLS, declared
from inspector.core.session.outcomes import ServerInfo, result_of
from inspector.core.session.session import DEFAULT_REQUEST_TIMEOUT, Session
from inspector.core.skills.entries import MAX_TOTAL_BYTES, SkillEntry, entry_of, outside
from inspector.core.skills.frontmatter import FrontmatterError, differences, split

#: Pages of skills/list followed before giving up on a server that pages forever.
MAX_PAGES = 100


class SkillError(Exception):
    """Skills cannot be listed or got (not offered, an error answer, a malformed result); ``str()`` is a sentence.
    ``error`` is the JSON-RPC error object when the server answered with one."""

    def __init__(self, sentence: str, error: Any = None) -> None:
        super().__init__(sentence)
        self.error = error


class SkillVerificationError(SkillError):
    """A file of a skill is not what its entry promised (``check``: size, digest, frontmatter, unlisted, outside,
    unread); the skill is not loaded and nothing more is read from it."""

    def __init__(self, sentence: str, uri: str, check: str) -> None:
        super().__init__(sentence)
        self.uri = uri
        self.check = check


@dataclass
class Listing:
    """A ``skills/list``: its entries (every page), and the caching hints of its last page."""

    entries: list[SkillEntry]
    ttl_ms: int | None = None
    cache_scope: str | None = None


def offers_skills(server: ServerInfo | None) -> bool:
    """Whether the server declares the skills extension (a client calls its methods only then)."""
    return server is not None and declared(server.capabilities, SKILLS) is not None


def offers_directory_read(server: ServerInfo | None) -> bool:
    """Whether the server declares ``directoryRead: true`` (``resources/directory/read`` may be called)."""
    settings = declared(server.capabilities, SKILLS) if server is not None else None
    return isinstance(settings, dict) and settings.get("directoryRead") is True


def _not_offered() -> SkillError:
    return SkillError(f"the server does not declare the {SKILLS} extension, so it serves no skills to list or "
                      "load (its capabilities.extensions has no such key)")


async def list_skills(session: Session, *, timeout: float = DEFAULT_REQUEST_TIMEOUT) -> Listing:
    """Every skill entry of ``skills/list``, all pages. Raises :class:`SkillError` and the session's errors."""
    if not offers_skills(session.server):
        raise _not_offered()
    entries: list[SkillEntry] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _page in range(MAX_PAGES):
        response = await session.request("skills/list", {"cursor": cursor} if cursor is not None else None,
                                          timeout=timeout)
        result = _result(response, "skills/list")
        found = result.get("skills")
        if not isinstance(found, list):
            raise SkillError("the server's skills/list result has no skills list")
        entries.extend(entry_of(item) for item in found)
        cursor = result.get("nextCursor")
        if cursor is None:
            ttl = result.get("ttlMs")
            scope = result.get("cacheScope")
            return Listing(entries, ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else None,
                           scope if isinstance(scope, str) else None)
        if not isinstance(cursor, str) or cursor in seen:
            raise SkillError("the server's skills/list gave a nextCursor that is not a new string; stopped so as "
                             "not to loop")
        seen.add(cursor)
    raise SkillError(f"the server's skills/list still had more after {MAX_PAGES} pages; stopped there")


async def get_skill(session: Session, uri: str, *, timeout: float = DEFAULT_REQUEST_TIMEOUT) -> SkillEntry:
    """The entry of the skill whose ``SKILL.md`` is ``uri`` (``skills/get``). Raises :class:`SkillError`."""
    if not offers_skills(session.server):
        raise _not_offered()
    result = _result(await session.request("skills/get", {"uri": uri}, timeout=timeout), "skills/get")
    if not isinstance(result.get("skill"), dict):
        raise SkillError("the server's skills/get result has no skill")
    return entry_of(result["skill"])


async def read_directory(session: Session, uri: str, *, timeout: float = DEFAULT_REQUEST_TIMEOUT
                         ) -> list[dict[str, Any]]:
    """The direct children of directory ``uri`` (``resources/directory/read``, all pages), as resources. Only
    with a server that declares ``directoryRead``; raises :class:`SkillError` otherwise or on an error."""
    if not offers_directory_read(session.server):
        raise SkillError("the server does not declare directoryRead, so its directories cannot be read")
    children: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _page in range(MAX_PAGES):
        params: dict[str, Any] = {"uri": uri}
        if cursor is not None:
            params["cursor"] = cursor
        result = _result(await session.request("resources/directory/read", params, timeout=timeout),
                         "resources/directory/read")
        found = result.get("resources")
        if not isinstance(found, list):
            raise SkillError("the server's resources/directory/read result has no resources list")
        children.extend(c for c in found if isinstance(c, dict))
        cursor = result.get("nextCursor")
        if cursor is None:
            return children
        if not isinstance(cursor, str) or cursor in seen:
            raise SkillError("the server's resources/directory/read gave a nextCursor that is not a new string")
        seen.add(cursor)
    raise SkillError(f"resources/directory/read still had more after {MAX_PAGES} pages; stopped there")


def _result(response: Any, method: str) -> dict[str, Any]:
    result, error = result_of(response)
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        code = error.get("code") if isinstance(error, dict) else None
        raise SkillError(f"the server answered {method} with an error: {message or '(no message)'} (code {code})",
                         error)
    if not isinstance(result, dict):
        raise SkillError(f"the server's {method} result is not an object")
    return result


@dataclass
class SkillFileRead:
    """A file of a loaded skill, as read and verified: its bytes (the digest covers them), MIME type, and whether
    it was verified (False only for a skill whose resources are dynamic)."""

    uri: str
    data: bytes
    mime_type: str | None
    verified: bool

    @property
    def text(self) -> str | None:
        """The file as UTF-8 text, or None when it is not."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    @property
    def digest(self) -> str:
        return "sha256:" + hashlib.sha256(self.data).hexdigest()


@dataclass
class SkillLoad:
    """Loading one skill from its entry: :meth:`open` (SKILL.md), then :meth:`read` for each supporting file when
    it is wanted. ``failure`` is the verification failure that stopped it, if one did."""

    session: Session
    entry: SkillEntry
    timeout: float = DEFAULT_REQUEST_TIMEOUT
    skill_md: SkillFileRead | None = None
    body: str = ""  #: SKILL.md after its frontmatter
    files: dict[str, SkillFileRead] = field(default_factory=dict)  #: read so far, by URI
    failure: SkillVerificationError | None = None

    @property
    def loaded(self) -> bool:
        return self.skill_md is not None and self.failure is None

    async def open(self) -> SkillFileRead:
        """Read ``SKILL.md`` and verify it (size, digest, frontmatter); the skill is loaded when this returns.
        Raises :class:`SkillVerificationError` (and the session's errors)."""
        if self.entry.problem is not None:
            raise SkillError(f"{self.entry.uri} cannot be loaded: {self.entry.problem}")
        read = await self._read_verified(self.entry.uri)
        text = read.text
        if text is None:
            raise self._fail(self.entry.uri, "frontmatter", f"{self.entry.uri} is not UTF-8 text, so its "
                                                            "frontmatter cannot be compared with the listing's")
        try:
            parsed, body = split(text)
        except FrontmatterError as exc:
            raise self._fail(self.entry.uri, "frontmatter", f"{self.entry.uri} cannot be compared with the "
                                                            f"listing: {exc}") from None
        found = differences(parsed, self.entry.frontmatter)
        if found:
            raise self._fail(self.entry.uri, "frontmatter",
                             f"the frontmatter of {self.entry.uri} is not the listing's: {'; '.join(found)}")
        self.skill_md, self.body = read, body
        self.files[self.entry.uri] = read
        return read

    async def read(self, uri: str) -> SkillFileRead:
        """One file of the loaded skill, read now and verified (a file read before is not read again). Raises
        :class:`SkillVerificationError` for a file the entry does not list or one that does not match."""
        if self.failure is not None:
            raise self.failure
        if self.skill_md is None:
            raise SkillError(f"{self.entry.uri} is not loaded yet: its SKILL.md is read first")
        if uri in self.files:
            return self.files[uri]
        if self.entry.dynamic and (problem := outside(uri, self.entry.root)) is not None:
            raise self._fail(uri, "outside", f"{uri} {problem}, so it was not read")
        if not self.entry.dynamic and self.entry.file(uri) is None:
            raise self._fail(uri, "unlisted", f"{uri} is not among the files {self.entry.uri}'s entry lists: an "
                                              "unlisted file is a changed skill, so it was not read")
        read = await self._read_verified(uri)
        self.files[uri] = read
        return read

    def supporting_files(self) -> list[str]:
        """The URIs of the skill's other files, as its entry lists them (none known for a dynamic skill)."""
        return [f.uri for f in self.entry.files or () if f.uri != self.entry.uri]

    async def _read_verified(self, uri: str) -> SkillFileRead:
        response = await self.session.request("resources/read", {"uri": uri}, timeout=self.timeout)
        result, error = result_of(response)
        if error is not None:
            message = error.get("message") if isinstance(error, dict) else error
            raise self._fail(uri, "unread", f"{uri} could not be read: the server answered resources/read with "
                                            f"an error: {message}")
        data, mime = _contents(result, uri)
        if data is None:
            raise self._fail(uri, "unread", f"the server's resources/read of {uri} holds no text or blob of it")
        listed = self.entry.file(uri)
        if listed is None:  # a dynamic skill: nothing to verify against but the limit on what is retrieved
            if self.entry.dynamic and sum(len(f.data) for f in self.files.values()) + len(data) > MAX_TOTAL_BYTES:
                raise self._fail(uri, "size", f"{self.entry.uri} is dynamic and its files read so far pass 16 MiB; "
                                              "stopped reading it")
            return SkillFileRead(uri, data, mime, verified=False)
        if len(data) != listed.size:
            raise self._fail(uri, "size", f"{uri} is {len(data):,} bytes, but the skill's entry says "
                                          f"{listed.size:,}: it does not match")
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        if digest != listed.digest:
            raise self._fail(uri, "digest", f"the sha256 digest of {uri} is {digest[7:19]}…, but the skill's entry "
                                            f"says {listed.digest[7:19]}…: it does not match")
        return SkillFileRead(uri, data, mime, verified=True)

    def _fail(self, uri: str, check: str, sentence: str) -> SkillVerificationError:
        """The load stops here for good: a sentence that says so, kept as :attr:`failure`."""
        name = self.entry.name or self.entry.uri
        outcome = (f"the file was not used, and nothing more is read from the skill {name}" if self.skill_md is not None
                   else f"the skill {name} was not loaded, and nothing more is read from it")
        self.failure = SkillVerificationError(f"{sentence}; {outcome} (SEP-2640 verification)", uri, check)
        self.session.note(str(self.failure), failure=True, skill=self.entry.uri, verification=check)
        return self.failure


def _contents(result: Any, uri: str) -> tuple[bytes | None, str | None]:
    """The bytes of ``uri`` in a ``resources/read`` result: text as UTF-8, a blob decoded (None: neither)."""
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list):
        return None, None
    items = [c for c in contents if isinstance(c, dict)]
    item = next((c for c in items if c.get("uri") == uri), items[0] if len(items) == 1 else None)
    if item is None:
        return None, None
    mime = item.get("mimeType") if isinstance(item.get("mimeType"), str) else None
    if isinstance(item.get("text"), str):
        return item["text"].encode("utf-8"), mime
    if isinstance(item.get("blob"), str):
        try:
            return base64.b64decode(item["blob"], validate=True), mime
        except (binascii.Error, ValueError):
            return None, mime
    return None, mime


def find_entry(entries: list[SkillEntry], name: str) -> SkillEntry | list[SkillEntry] | None:
    """The entry called ``name`` (its frontmatter name, or its SKILL.md URI): one entry, the entries that share
    the name (names are labels, not identifiers: SEP-2640 "Names"), or None."""
    by_uri = [e for e in entries if e.uri == name]
    if by_uri:
        return by_uri[0]
    named = [e for e in entries if e.name == name]
    if len(named) == 1:
        return named[0]
    return named or None
