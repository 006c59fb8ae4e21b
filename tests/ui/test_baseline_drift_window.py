"""A profile's tool baseline in the window (inspector/ui/compare/drift.py): Session > Save tool baseline… keeps the
tools and the profile remembers the file; connecting again to a server whose tools changed warns, naming the tool
and the field, without blocking the window; the same tools say nothing."""

from __future__ import annotations

import pytest
import warm_python
from helpers import until
from qt_loop import open_test_window
from window_views_support import VERSIONED, shot

from inspector.core.clients.profiles import ServerProfile
from inspector.core.connect.target import Target
from inspector.ui.session.live import READY

pytestmark = pytest.mark.integration


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


def profile(version: int) -> ServerProfile:
    executable, *args = warm_python.command(VERSIONED)
    return ServerProfile(name="tools", kind="stdio", command=executable, args=args,
                         env={"TOOLS_VERSION": str(version)})


def test_a_saved_baseline_warns_on_connect_when_the_tools_drifted(window, qloop, tmp_path):
    store = window.sidebar.store
    store.add(profile(1))
    window.sidebar.reload()
    baseline = tmp_path / "tools.baseline.json"

    async def approve():
        tab = window.open_live(Target.from_profile(store.get("tools")))
        await until(lambda: tab.live.state == READY and tab.explorer.catalog.settled, 30, "the tools listed")
        return tab, window.baselines.save_baseline(tab, baseline)

    tab, said = qloop.run_until_complete(approve())
    assert said == f"3 tools kept in {baseline}; the profile tools checks it at every connect"
    assert store.get("tools").baseline == str(baseline)
    assert getattr(tab, "drift_watch", None) is None  # there was no baseline when it connected

    async def connect(version: int):
        store.update("tools", ServerProfile(**{**store.get("tools").__dict__, "env": {"TOOLS_VERSION": str(version)}}))
        window.sidebar.reload()
        tab = window.open_live(Target.from_profile(store.get("tools")))
        await until(lambda: getattr(tab, "drift_watch", None) is not None and tab.drift_watch.drift is not None, 30,
                    "the drift check")
        return tab

    same = qloop.run_until_complete(connect(1))
    assert not same.drift_watch.drift.drifted and same.drift_watch.box is None
    drifted = qloop.run_until_complete(connect(2))
    box = drifted.drift_watch.box
    assert box is not None and box.isVisible() and not box.isModal()
    assert "• tool echo changed (description)" in box.text()
    assert "• tool shout removed" in box.text() and "• tool wipe added" in box.text()
    assert "drift: tool shout removed" in window.statusBar().currentMessage()
    window.resize(1200, 700)
    shot(box, tmp_path, "baseline-drift-warning.png")
    shot(window, tmp_path, "baseline-drift-window.png")
