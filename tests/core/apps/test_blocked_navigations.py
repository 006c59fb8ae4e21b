"""A blocked navigation of a frame is a request in the report even when the browser names no URL (Chromium's CSP
reports leave data: and blob: URLs out), and a long URL is shown by its start and its size."""

from __future__ import annotations

from inspector.core.apps.report import MAX_URL_SHOWN, UNNAMED_NAVIGATION, Blocked, shown_url


def test_a_frame_navigation_the_csp_refused_without_a_url_is_still_a_request():
    assert Blocked(UNNAMED_NAVIGATION, "frame-src", "browser", "refused").request
    assert Blocked("", "child-src", "browser", "refused").request
    assert not Blocked("inline", "script-src-elem", "browser", "refused").request, "code is no request"


def test_a_data_url_is_shown_by_its_start_and_its_size():
    url = "data:text/html," + "x" * 10_000
    shown = shown_url(url)
    assert shown.startswith(url[:MAX_URL_SHOWN]) and shown.endswith("(10,015 characters)")
    assert shown_url("blob:mcp-app://app-1/2") == "blob:mcp-app://app-1/2"
