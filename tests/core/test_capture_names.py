"""New captures are named one way, whoever records them (the window, the tap): the session's name made safe
for a file system, then the local time to the millisecond."""

from __future__ import annotations

import re

from inspector.core.paths import capture_name, default_capture_path

STAMP = r"-\d{8}-\d{6}-\d{3}\.jsonl"


def test_a_capture_is_named_after_its_session_then_the_time_to_the_millisecond():
    assert re.fullmatch("my-server" + STAMP, capture_name("my server"))


def test_a_name_cannot_leave_the_folder_hide_the_file_or_grow_without_bound():
    assert re.fullmatch(r"etc-passwd" + STAMP, capture_name("/etc/passwd"))
    assert re.fullmatch(r"hidden" + STAMP, capture_name(".hidden"))
    assert re.fullmatch(r"x{40}" + STAMP, capture_name("x" * 100))


def test_a_name_with_nothing_usable_gives_session():
    assert re.fullmatch("session" + STAMP, capture_name("…/ "))


def test_the_default_path_is_that_name_in_the_given_folder(tmp_path):
    path = default_capture_path("demo", tmp_path)
    assert path.parent == tmp_path and re.fullmatch("demo" + STAMP, path.name)
