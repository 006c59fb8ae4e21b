"""The skills of one live session, as the Explorer's Skills page shows them: the listing, the skills loaded, the
files read and the findings. Qt-free: the page subscribes to :attr:`SkillShelf.listeners` (plain callables called
with a :class:`ShelfNotice`) and asks for what the user asks; nothing is read ahead of the user's asking
(SEP-2640: "Hosts MUST NOT retrieve a skill's files ahead of need").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspector.core.notices import What
from inspector.core.session.session import DEFAULT_REQUEST_TIMEOUT, Session
from inspector.core.skills.entries import SkillEntry
from inspector.core.skills.loader import (
    Listing,
    SkillError,
    SkillLoad,
    SkillVerificationError,
    get_skill,
    list_skills,
    offers_directory_read,
    offers_skills,
    read_directory,
)
from inspector.core.transports.base import TransportError


@dataclass(frozen=True)
class ShelfNotice:
    """``what`` (a :class:`~inspector.core.notices.What`): ``LISTED``, ``LIST_FAILED``, ``LOADED``, ``READ``,
    ``DIRECTORY``, ``FAILED`` (a sentence), or ``FINDING`` (a verification failure: the load stopped);
    ``skill``/``uri``: what it is about."""

    what: What
    skill: str = ""
    uri: str = ""
    sentence: str = ""
    data: Any = None


class SkillShelf:
    """The session's skills; see the module's notes."""

    def __init__(self, session: Session, *, timeout: float = DEFAULT_REQUEST_TIMEOUT) -> None:
        self.session = session
        self.timeout = timeout
        self.listing: Listing | None = None
        self.loads: dict[str, SkillLoad] = {}  #: by the skill's SKILL.md URI
        self.listeners: list[Callable[[ShelfNotice], None]] = []

    @property
    def offered(self) -> bool:
        return offers_skills(self.session.server)

    @property
    def directory_read(self) -> bool:
        return offers_directory_read(self.session.server)

    @property
    def entries(self) -> list[SkillEntry]:
        return self.listing.entries if self.listing is not None else []

    def entry(self, uri: str) -> SkillEntry | None:
        load = self.loads.get(uri)
        if load is not None:
            return load.entry
        return next((e for e in self.entries if e.uri == uri), None)

    def _tell(self, notice: ShelfNotice) -> None:
        for listener in list(self.listeners):
            listener(notice)

    async def refresh(self) -> None:
        """``skills/list``, every page (reads no skill file); tells ``listed`` or ``list_failed``."""
        try:
            self.listing = await list_skills(self.session, timeout=self.timeout)
        except (SkillError, TransportError) as exc:
            self._tell(ShelfNotice(What.LIST_FAILED, sentence=str(exc)))
            return
        self._tell(ShelfNotice(What.LISTED))

    async def load(self, uri: str) -> None:
        """Load the skill whose SKILL.md is ``uri`` (its entry from the listing, else ``skills/get``; after a
        verification failure, afresh from ``skills/get``, as SEP-2640 says a host recovers from a stale entry):
        SKILL.md read and verified; tells ``loaded``, or ``finding`` when it does not match, ``failed`` otherwise."""
        try:
            previous = self.loads.get(uri)
            stale = previous is not None and previous.failure is not None
            entry = None if stale else self.entry(uri)
            entry = entry or await get_skill(self.session, uri, timeout=self.timeout)
            load = self.loads[uri] = SkillLoad(self.session, entry, self.timeout)
            await load.open()
        except SkillVerificationError as exc:
            self._tell(ShelfNotice(What.FINDING, uri, exc.uri, str(exc), exc.check))
            return
        except (SkillError, TransportError) as exc:
            self._tell(ShelfNotice(What.FAILED, uri, uri, str(exc)))
            return
        self._tell(ShelfNotice(What.LOADED, uri, uri))

    async def read(self, skill: str, uri: str) -> None:
        """Read file ``uri`` of the loaded skill ``skill`` now, verified; tells ``read``, ``finding`` or ``failed``."""
        load = self.loads.get(skill)
        if load is None:
            self._tell(ShelfNotice(What.FAILED, skill, uri, f"load {skill} before reading its files"))
            return
        try:
            await load.read(uri)
        except SkillVerificationError as exc:
            self._tell(ShelfNotice(What.FINDING, skill, exc.uri, str(exc), exc.check))
            return
        except (SkillError, TransportError) as exc:
            self._tell(ShelfNotice(What.FAILED, skill, uri, str(exc)))
            return
        self._tell(ShelfNotice(What.READ, skill, uri))

    async def directory(self, skill: str, uri: str) -> None:
        """``resources/directory/read`` of ``uri`` (a server that declares directoryRead); tells ``directory`` with
        the children, or ``failed``. A live observation: it never adds to what a loaded skill may read."""
        try:
            children = await read_directory(self.session, uri, timeout=self.timeout)
        except (SkillError, TransportError) as exc:
            self._tell(ShelfNotice(What.FAILED, skill, uri, str(exc)))
            return
        self._tell(ShelfNotice(What.DIRECTORY, skill, uri, data=children))
