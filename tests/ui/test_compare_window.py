"""Session > Compare with… in the window (inspector/ui/compare): a capture against another capture, and against
the live next version of the server, both sides shown with the changed lines tinted."""

from __future__ import annotations

from pathlib import Path

import pytest
from qt_loop import open_test_window
from window_views_support import record_version, shot, versioned_target

from inspector.ui.sides import marked_lines

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("versions")
    return record_version(folder, 1), record_version(folder, 2)


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


def test_two_captures_side_by_side_name_the_changed_tool_and_tint_its_description(window, qloop, versions,
                                                                                  tmp_path):
    v1, v2 = versions
    view = qloop.run_until_complete(window.comparisons.run_compare(v1, capture=v2))
    window.resize(1300, 760)
    listed = [view.items.item(i).text() for i in range(view.items.count())]
    assert listed[:3] == ["- tool shout removed", "+ tool wipe added", "~ tool echo changed (description)"]
    assert any(text.startswith("~ tools/call add") for text in listed)
    view.items.setCurrentRow(2)
    assert marked_lines(view.sides.left) == ['  "description": "Return the message unchanged.",']
    assert "read ~/.ssh/id_rsa" in marked_lines(view.sides.right)[0]
    assert "4 differences" in view.summary.text()
    assert window.tabs.tabText(window.tabs.currentIndex()) == "compare: v1"
    shot(window, tmp_path, "compare-view.png")


def test_a_capture_against_the_live_next_version_opens_with_its_session_saved(window, qloop, versions):
    v1, _ = versions
    view = qloop.run_until_complete(window.comparisons.run_compare(v1, target=versioned_target(2)))
    assert view is not None and view.result.differences == 4
    assert view.open_button.isEnabled()
    captures = list(window.captures.glob("compare-*.jsonl"))
    assert len(captures) == 1 and '"tools/call' in captures[0].read_text()
