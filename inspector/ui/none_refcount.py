"""A guard against a PySide6 6.12.0 bug on Python 3.11: every call of a Qt method that returns nothing drops a
reference to ``None`` (6.11.3 does not). ``None`` starts with a few thousand references, so after a few
thousand ``setText``, ``setFormat`` or ``insertText`` calls the interpreter aborts: "Fatal Python error:
none_dealloc: deallocating None". Showing all of a 50 MB message makes tens of thousands of such calls.

:func:`protect_none` finds out whether the installed PySide6 does this (a few calls of a void method, and
the count of references to None before and after) and, only then, gives None so many references that it can
never run out. Extra references to None are harmless: it is never freed anyway. From Python 3.12 on None is
immortal and nothing is needed. The real fix is a PySide6 without the bug.

The same PySide6 drops a reference to ``True`` on every Python-side ``Signal.emit()`` (it returns a bool): a
live session emits a few of those a second (``events_arrived``, repaints of answered rows), so a long session
(ten million events, minutes of a flood) aborted with "bool_dealloc: deallocating True or False".
:func:`protect_bools` checks for that too and protects both booleans the same way.
"""

from __future__ import annotations

import ctypes
import sys

#: References given to None when the bug is there: at a million void calls a second, 35 years' worth.
SPARE_REFERENCES = 1 << 50


def protect_none() -> bool:
    """Returns whether the bug is there (and None was protected)."""
    if sys.version_info >= (3, 12):
        return False
    from PySide6.QtCore import QObject

    probe = QObject()
    calls = 64
    before = sys.getrefcount(None)
    for _ in range(calls):
        probe.setObjectName("probe")  # returns nothing
    stolen = before - sys.getrefcount(None)
    if stolen < calls // 2:
        return False
    ctypes.c_ssize_t.from_address(id(None)).value += SPARE_REFERENCES  # ob_refcnt is a PyObject's first field
    return True


def protect_bools() -> bool:
    """Returns whether ``Signal.emit`` drops references to a boolean (and True and False were protected)."""
    if sys.version_info >= (3, 12):
        return False
    from PySide6.QtCore import QObject, Signal

    class Probe(QObject):
        fired = Signal()

    probe = Probe()
    calls = 64
    before = sys.getrefcount(True) + sys.getrefcount(False)
    for _ in range(calls):
        probe.fired.emit()
    stolen = before - sys.getrefcount(True) - sys.getrefcount(False)
    if stolen < calls // 2:
        return False
    for value in (True, False):
        ctypes.c_ssize_t.from_address(id(value)).value += SPARE_REFERENCES
    return True


PROTECTED = protect_none()
BOOLS_PROTECTED = protect_bools()
