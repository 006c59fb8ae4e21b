"""PySide6 6.12.0 on Python 3.11 drops a reference to None on every Qt call that returns nothing; after a few
thousand the interpreter aborts. inspector.ui guards against it (inspector/ui/none_refcount.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from helpers import ROOT

CALLS = """
import inspector.ui
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit
app = QApplication([])
label, editor = QLabel(), QPlainTextEdit()
for _ in range(50_000):
    label.setText("x")
    editor.appendPlainText("y") if _ % 100 == 0 else None
print("alive")
"""


def test_tens_of_thousands_of_qt_calls_that_return_nothing_do_not_abort_the_window_process():
    done = subprocess.run([sys.executable, "-c", CALLS], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "alive"


EMITS = """
import inspector.ui
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication
app = QApplication([])
class Source(QObject):
    fired = Signal()
source = Source()
source.fired.connect(lambda: None)
for _ in range(200_000):
    source.fired.emit()
print("alive")
"""


def test_hundreds_of_thousands_of_signal_emits_do_not_abort_the_window_process():
    """Signal.emit() dropped a reference to True each time: a long live session aborted (issue 17's 10M run)."""
    done = subprocess.run([sys.executable, "-c", EMITS], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "alive"
