"""The suite's conftest keeps every widget given to ``qtbot.addWidget`` alive until the test's teardown: pytest-qt
holds only a weak reference, and a shown widget deleted as the test returned crashed the worker in the next
processEvents (tests/conftest.py)."""

from __future__ import annotations

import gc
import os
import weakref

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def test_a_widget_given_to_qtbot_outlives_its_last_reference_in_the_test(qtbot):
    from PySide6.QtWidgets import QWidget

    widget = QWidget()
    alive = weakref.ref(widget)
    qtbot.addWidget(widget)
    del widget
    gc.collect()
    assert alive() is not None
