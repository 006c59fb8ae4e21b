"""What a feature's logic object tells the window it did: the one vocabulary of the Explorer's catalog
(:class:`inspector.core.explore.catalog.Notice`) and the Skills shelf
(:class:`inspector.core.skills.shelf.ShelfNotice`), so a page decides by a name the type checker knows
rather than by a string it may misspell."""

from __future__ import annotations

from enum import StrEnum


class What(StrEnum):
    """What a notice says happened (its value is the word it stood for before, for logs and tests)."""

    LISTED = "listed"  #: a listing is new (the catalog: ``kind``'s items; the shelf: the skills)
    LIST_FAILED = "list_failed"  #: a listing could not be had (``sentence`` says why)
    CHANGE_IGNORED = "change_ignored"  #: the server said ``kind`` changed without declaring listChanged
    UPDATED = "updated"  #: the server says resource ``uri`` changed
    PROGRESS = "progress"  #: a progress notification for ``token``
    ROOTS = "roots"  #: the roots the client declares changed
    CALLED = "called"  #: a tool call came back
    READ = "read"  #: a resource (or a skill's file) was read
    LISTEN_FAILED = "listen_failed"  #: no subscription stream could be opened
    LOADED = "loaded"  #: a skill was loaded
    DIRECTORY = "directory"  #: a skill's directory was read
    FINDING = "finding"  #: a skill failed its verification: the load stopped
    FAILED = "failed"  #: a skill's load or read failed (``sentence`` says why)
