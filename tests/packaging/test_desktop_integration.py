"""Desktop integration: `mcp-inspector install-desktop` into a HOME of the test's own, the files it installs
checked by the freedesktop.org tools where they are installed, and a capture opened as `mcp-inspector FILE`."""

from __future__ import annotations

import argparse
import configparser
import os
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import ROOT
from packaging_support import home_env, run

from inspector import resources
from inspector.cli import desktop_cmd
from inspector.cli.main import build_parser, capture_as_open

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the icon tests need a QApplication, not a display

SAMPLE = ROOT / "tests" / "data" / "sample-v1.jsonl"
INSTALLED = [
    "applications/mcp-inspector.desktop",
    *[f"icons/hicolor/{n}x{n}/apps/mcp-inspector.png" for n in resources.ICON_SIZES],
    "icons/hicolor/scalable/apps/mcp-inspector.svg",
    "mime/packages/mcp-inspector.xml",
    "metainfo/io.github.mcp_inspector.metainfo.xml",
]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="freedesktop.org desktops only")


def install(home: Path, *args: str):
    return run([sys.executable, "-m", "inspector", "install-desktop", *args], timeout=120,
               what="mcp-inspector install-desktop", env=home_env(home))


def desktop_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def test_install_desktop_puts_the_entry_icons_type_and_metainfo_into_the_users_data_folder(tmp_path):
    home = tmp_path / "home"
    done = install(home, "--exec", "'/opt/mcp inspector/mcp-inspector'")  # a shell-quoted command line
    assert done.returncode == 0, done.stderr
    data = home / "data"
    assert [name for name in INSTALLED if not (data / name).is_file()] == []
    for size in resources.ICON_SIZES:
        assert (data / f"icons/hicolor/{size}x{size}/apps/mcp-inspector.png").read_bytes() == \
            resources.icon_png(size).read_bytes()
    entry = desktop_entry(data / "applications" / "mcp-inspector.desktop")
    assert entry["Exec"] == '"/opt/mcp inspector/mcp-inspector" %f'
    assert entry["TryExec"] == "/opt/mcp inspector/mcp-inspector"
    assert entry["Icon"] == "mcp-inspector"
    assert entry["MimeType"] == f"{resources.CAPTURE_MIME_TYPE};"
    assert "the menu entry runs: '/opt/mcp inspector/mcp-inspector' FILE" in done.stdout


def test_install_desktop_remove_deletes_exactly_what_it_installed(tmp_path):
    home = tmp_path / "home"
    assert install(home).returncode == 0
    neighbour = home / "data" / "applications" / "someone-else.desktop"
    neighbour.write_text("[Desktop Entry]\nType=Application\nName=Other\nExec=other\n")
    done = install(home, "--remove")
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith("removed")] == \
        [f"removed {home / 'data' / name}" for name in INSTALLED]
    assert not any((home / "data" / name).exists() for name in INSTALLED)
    assert neighbour.exists()


def test_a_dry_run_of_install_desktop_writes_nothing(tmp_path):
    home = tmp_path / "home"
    done = install(home, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("would write") == len(INSTALLED)
    assert not (home / "data").exists()


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-validate is not installed "
                    "(apt-get install desktop-file-utils)")
def test_the_installed_desktop_entry_passes_desktop_file_validate(tmp_path):
    home = tmp_path / "home"
    assert install(home).returncode == 0
    for path in (resources.path(resources.DESKTOP_FILE), home / "data" / "applications" / "mcp-inspector.desktop"):
        checked = run(["desktop-file-validate", str(path)], timeout=60, what="desktop-file-validate")
        assert (checked.returncode, checked.stdout + checked.stderr) == (0, ""), path


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="appstreamcli is not installed "
                    "(apt-get install appstream)")
def test_the_metainfo_passes_appstreamcli_validate(tmp_path):
    checked = run(["appstreamcli", "validate", "--no-net", "--pedantic", str(resources.path(resources.METAINFO_FILE))],
                  timeout=60, what="appstreamcli validate")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_metainfo_names_the_desktop_entry_the_icon_and_the_capture_type():
    root = ET.parse(resources.path(resources.METAINFO_FILE)).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("launchable") == resources.DESKTOP_FILE
    assert root.findtext("icon") == resources.ICON_NAME
    assert root.findtext("provides/binary") == "mcp-inspector"
    assert root.findtext("provides/mediatype") == resources.CAPTURE_MIME_TYPE


@pytest.mark.skipif(shutil.which("update-mime-database") is None or shutil.which("gio") is None,
                    reason="needs update-mime-database (shared-mime-info) and gio (libglib2.0-bin)")
def test_after_install_desktop_a_capture_is_recognised_by_its_header_and_other_json_lines_are_not(tmp_path):
    home = tmp_path / "home"
    done = install(home)
    assert done.returncode == 0, done.stderr
    assert "ran update-mime-database" in done.stdout
    files = tmp_path / "files"
    files.mkdir()
    shutil.copyfile(SAMPLE, files / "session.jsonl")
    shutil.copyfile(SAMPLE, files / "renamed-without-extension")
    (files / "other.jsonl").write_text('{"a": 1}\n{"b": 2}\n')
    (files / "by-hand.jsonl").write_text('{"version": 1,\n "format": "mcp-inspector-capture"}\n')

    def content_type(name: str) -> str:
        shown = run(["gio", "info", "--attributes=standard::content-type", str(files / name)], timeout=60,
                    what="gio info", env=home_env(home))
        return shown.stdout.strip().splitlines()[-1].split(": ", 1)[1]

    assert content_type("session.jsonl") == resources.CAPTURE_MIME_TYPE
    assert content_type("renamed-without-extension") == resources.CAPTURE_MIME_TYPE
    assert content_type("by-hand.jsonl") == resources.CAPTURE_MIME_TYPE
    assert content_type("other.jsonl") != resources.CAPTURE_MIME_TYPE


def test_the_menu_entry_runs_this_mcp_inspector_by_its_absolute_path(monkeypatch, tmp_path):
    script = tmp_path / "venv" / "bin" / "mcp-inspector"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(script), "install-desktop"])
    assert desktop_cmd.launcher() == [str(script)]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "/opt/mcp-inspector/mcp-inspector")
    assert desktop_cmd.launcher() == ["/opt/mcp-inspector/mcp-inspector"]


def test_exec_arguments_are_quoted_as_the_desktop_entry_specification_says():
    assert desktop_cmd.exec_quote("/usr/bin/mcp-inspector") == "/usr/bin/mcp-inspector"
    assert desktop_cmd.exec_quote("/opt/my apps/mcp-inspector") == '"/opt/my apps/mcp-inspector"'
    assert desktop_cmd.exec_quote('/a"b$c`d\\e') == '"/a\\"b\\$c\\`d\\\\e"'
    assert desktop_cmd.exec_quote("/100%/x") == '"/100%%/x"'
    entry = desktop_cmd.desktop_entry(["/opt/a\\b/mcp-inspector", "-m", "inspector"])
    # the Exec value's own escape doubles the backslash that quoting added: four in the file for one in the path
    assert 'Exec="/opt/a\\\\\\\\b/mcp-inspector" -m inspector %f' in entry.splitlines()


def test_a_capture_path_as_the_only_argument_opens_it_like_open(tmp_path):
    parser = build_parser()
    capture = tmp_path / "session.jsonl"
    capture.write_text(SAMPLE.read_text())
    args = parser.parse_args(capture_as_open([str(capture)], parser))
    assert (args.open, args.command) == (capture, None)
    # a command name, an option, or a name that is no file keep their meaning
    assert capture_as_open(["show", str(capture)], parser) == ["show", str(capture)]
    assert capture_as_open(["--demo"], parser) == ["--demo"]
    assert capture_as_open(["recrod"], parser) == ["recrod"]


def test_a_mistyped_command_is_still_reported_as_one(capsys):
    with pytest.raises(SystemExit) as exit_info:
        parser = build_parser()
        parser.parse_args(capture_as_open(["recrod"], parser))
    assert exit_info.value.code == 2
    assert "invalid choice: 'recrod'" in capsys.readouterr().err


def test_the_window_icon_has_every_shipped_size(qapp):
    from inspector.ui.app import app_icon

    icon = app_icon()
    assert not icon.isNull()
    assert sorted(size.width() for size in icon.availableSizes()) == sorted(resources.ICON_SIZES)


def test_the_icon_pngs_are_rendered_from_the_svg_at_their_sizes(qapp):
    from PySide6.QtGui import QImage

    for size in resources.ICON_SIZES:
        image = QImage(str(resources.icon_png(size)))
        assert (image.width(), image.height()) == (size, size)
    assert b"<svg" in resources.icon_svg().read_bytes()


def test_an_exec_command_with_an_unclosed_quote_is_refused_with_a_sentence(tmp_path):
    done = install(tmp_path / "home", "--exec", "'/opt/mcp inspector")
    assert done.returncode == 2
    assert done.stderr.startswith("mcp-inspector install-desktop: --exec \"'/opt/mcp inspector\": No closing quotation")
    assert not (tmp_path / "home" / "data").exists()


def test_install_desktop_refuses_politely_off_linux(monkeypatch, capsys):
    monkeypatch.setattr(sys, "platform", "darwin")
    code = desktop_cmd.run_install_desktop(argparse.Namespace(exec_command=None, remove=False, dry_run=False))
    assert code == 2
    assert "for Linux desktops" in capsys.readouterr().err
