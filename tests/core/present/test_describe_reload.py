"""How the timeline and ``show`` say a reload on save (inspector/core/present/describe.py)."""

from __future__ import annotations

from inspector.core.present.describe import describe_lifecycle


def test_a_reloading_event_names_the_changed_files():
    assert describe_lifecycle({"what": "reloading", "changed": ["/src/server.py", "/src/tools.py"]}) == (
        "/src/server.py, /src/tools.py changed: the server restarts behind the client")


def test_the_old_server_s_exit_in_a_reload_says_so_and_a_failed_start_too():
    assert describe_lifecycle({"what": "exited", "code": 0, "reload": True}) == "exited with code 0 (reload)"
    assert describe_lifecycle({"what": "exited", "code": 1, "reload": True, "failed": True}) == (
        "exited with code 1 (it failed to start after a change)")
    assert describe_lifecycle({"what": "exited", "code": 0}) == "exited with code 0"
