"""The SERVERS sidebar and its dialogs, driven like a user would (pytest-qt, offscreen)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from inspector.core.clients.profiles import ProfileError, ProfileStore, ServerProfile
from inspector.ui.profiles.dialog import ProfileDialog
from inspector.ui.profiles.import_dialog import ImportDialog
from inspector.ui.profiles.sidebar import SUMMARY_ROLE, ProfilesSidebar

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"
MARKUP = "<b>x</b><img src=q>"


@pytest.fixture(autouse=True)
def no_real_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("APPDATA", str(tmp_path / "appdata"))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def store(tmp_path: Path) -> ProfileStore:
    return ProfileStore(tmp_path / "config" / "profiles.json")


@pytest.fixture
def make_sidebar(qtbot, store: ProfileStore, home: Path, tmp_path: Path) -> Callable[[], ProfilesSidebar]:
    def make() -> ProfilesSidebar:
        sidebar = ProfilesSidebar(store, home=home, cwd=tmp_path / "workspace")
        qtbot.addWidget(sidebar)
        sidebar.resize(280, 480)
        sidebar.show()
        qtbot.waitExposed(sidebar)
        return sidebar
    return make


def names(sidebar: ProfilesSidebar) -> list[str]:
    return [sidebar.list.item(row).text() for row in range(sidebar.list.count())]


def rich_labels(widget: QWidget) -> list[str]:
    return [label.text() for label in widget.findChildren(QLabel) if label.textFormat() != Qt.TextFormat.PlainText]


def stdio(name: str, *args: str) -> ServerProfile:
    return ServerProfile(name=name, kind="stdio", command="python", args=list(args))


# -- adding, editing, removing -----------------------------------------------------------------------------


def test_adding_a_stdio_profile_through_the_dialog_saves_it_and_selects_it(qtbot, make_sidebar, store) -> None:
    sidebar = make_sidebar()
    assert sidebar.list.isHidden() and not sidebar.empty_label.isHidden()
    qtbot.mouseClick(sidebar.add_button, Qt.MouseButton.LeftButton)
    dialog = sidebar.dialog
    assert isinstance(dialog, ProfileDialog) and dialog.isVisible()
    assert not dialog.ok_button.isEnabled() and dialog.problem_label.text() == "Give the server a name."

    dialog.name_edit.setText("time")
    dialog.command_edit.setText("uvx")
    dialog.args_edit.setText("mcp-server-time --local-timezone 'Europe/Paris'")
    dialog.env_edit.setPlainText("TZ_TOKEN=s3cret\n# a comment\n\nDEBUG=1")
    dialog.cwd_edit.setText("/srv/time")
    assert dialog.ok_button.isEnabled() and dialog.problem_label.text() == ""
    with qtbot.waitSignal(sidebar.profiles_changed, timeout=2000):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    assert store.load() == [ServerProfile(
        name="time", kind="stdio", command="uvx", args=["mcp-server-time", "--local-timezone", "Europe/Paris"],
        env={"TZ_TOKEN": "s3cret", "DEBUG": "1"}, cwd="/srv/time")]
    assert names(sidebar) == ["time"] and sidebar.current_profile().name == "time"
    assert sidebar.list.item(0).data(SUMMARY_ROLE) == "stdio: uvx mcp-server-time --local-timezone Europe/Paris"
    assert not sidebar.list.isHidden() and sidebar.empty_label.isHidden()
    qtbot.waitUntil(lambda: sidebar.dialog is None, timeout=2000)


def test_adding_an_http_profile_offers_the_url_transports_and_parses_headers(qtbot, make_sidebar, store) -> None:
    sidebar = make_sidebar()
    dialog = sidebar.add_profile()
    transports = [dialog.transport_combo.itemData(i) for i in range(dialog.transport_combo.count())]
    assert transports[:3] == ["auto", "streamable-http", "sse"]
    dialog.name_edit.setText("remote")
    dialog.set_kind("http")
    assert dialog.url_edit.isVisible() and not dialog.command_edit.isVisible()
    dialog.url_edit.setText("https://mcp.example.com/mcp")
    dialog.transport_combo.setCurrentIndex(transports.index("sse"))
    dialog.headers_edit.setPlainText("Authorization: Bearer abc\nX-Team:  core ")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert store.load() == [ServerProfile(name="remote", kind="http", url="https://mcp.example.com/mcp",
                                          transport="sse", headers={"Authorization": "Bearer abc", "X-Team": "core"})]
    assert sidebar.list.item(0).data(SUMMARY_ROLE) == "http: https://mcp.example.com/mcp (sse)"


def test_the_response_timeout_set_in_the_dialog_is_saved_and_given_to_the_session(qtbot, make_sidebar, store) -> None:
    from inspector.core.connect.target import Target

    sidebar = make_sidebar()
    dialog = sidebar.add_profile()
    assert dialog.timeout_spin.value() == 30.0  # the session's own default
    dialog.name_edit.setText("slow")
    dialog.command_edit.setText("python")
    dialog.timeout_spin.setValue(120)
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    [saved] = store.load()
    assert saved.timeout == 120.0
    assert Target.from_profile(saved).timeout == 120.0


@pytest.mark.parametrize(("fill", "words"), [
    ({"name": "a", "command": "x", "args": "--name 'unclosed"},
     "The arguments cannot be split: No closing quotation (check the quotes)."),
    ({"name": "a", "command": ""}, "Enter the command that starts the server."),
    ({"name": "a", "command": "x", "env": "JUST_A_NAME"}, "Environment line 1 must look like NAME=value."),
    ({"name": "a", "command": "x", "env": "A=1\nA=2"}, "Environment line 2: A is set twice."),
    ({"name": "taken", "command": "x"}, "A server named 'taken' already exists; choose another name."),
    ({"name": "a", "kind": "http", "url": ""}, "Enter the server's URL."),
    ({"name": "a", "kind": "http", "url": "ftp://h/mcp"},
     "The URL is not an http://, https:// (or ws://, wss://) URL."),
    ({"name": "a", "kind": "http", "url": "http:///mcp"}, "The URL has no host name."),
    ({"name": "a", "kind": "http", "url": "ws://h/mcp"}, "A ws:// or wss:// URL needs the websocket transport"),
    ({"name": "a", "kind": "http", "url": "http://h", "headers": "Authorization Bearer"},
     "Header line 1: 'Authorization Bearer' must look like 'Name: value'."),
    ({"name": "a", "kind": "http", "url": "http://h", "headers": "X: 1\nBad Name: 2"},
     "Header line 2: 'Bad Name: 2': 'Bad Name' is not a valid header name."),
    ({"name": "a", "kind": "http", "url": "http://h", "headers": "X: 1\nx: 2"}, "Header line 2: x is given twice."),
])
def test_the_dialog_keeps_ok_disabled_and_says_why_while_the_form_is_wrong(qtbot, fill: dict[str, str],
                                                                           words: str) -> None:
    dialog = ProfileDialog(None, ["taken"])
    qtbot.addWidget(dialog)
    dialog.name_edit.setText(fill["name"])
    dialog.set_kind(fill.get("kind", "stdio"))
    dialog.command_edit.setText(fill.get("command", ""))
    dialog.args_edit.setText(fill.get("args", ""))
    dialog.env_edit.setPlainText(fill.get("env", ""))
    dialog.url_edit.setText(fill.get("url", ""))
    dialog.headers_edit.setPlainText(fill.get("headers", ""))
    assert not dialog.ok_button.isEnabled()
    assert dialog.problem_label.text().startswith(words)
    with pytest.raises(ProfileError):
        dialog.profile()
    dialog.accept()  # Enter in a field cannot sneak past the check
    assert dialog.result() != ProfileDialog.DialogCode.Accepted


def test_editing_a_profile_changes_it_in_the_store_and_keeps_its_place(qtbot, make_sidebar, store) -> None:
    store.save([stdio("first"), stdio("demo", "-m", "inspector.demo"), stdio("last")])
    sidebar = make_sidebar()
    sidebar.select("demo")
    qtbot.mouseClick(sidebar.edit_button, Qt.MouseButton.LeftButton)
    dialog = sidebar.dialog
    assert isinstance(dialog, ProfileDialog)
    assert (dialog.name_edit.text(), dialog.command_edit.text(), dialog.args_edit.text()) == (
        "demo", "python", "-m inspector.demo")
    dialog.name_edit.setText("last")
    assert not dialog.ok_button.isEnabled()  # another profile's name
    dialog.name_edit.setText("demo server")
    dialog.args_edit.setText("-m inspector.demo --slow")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert [p.name for p in store.load()] == ["first", "demo server", "last"]
    assert store.get("demo server").args == ["-m", "inspector.demo", "--slow"]
    assert sidebar.current_profile().name == "demo server"


def _edited(kind: str) -> object:
    case = f"editing a saved {kind} profile that lets coding agents see its secrets (its timeout changed)"
    return pytest.param(kind, marks=pytest.mark.report("faults", case, surface="GUI", group="window"))


@pytest.mark.parametrize("kind", [_edited("stdio"), _edited("http")])
def test_editing_a_profile_keeps_agent_sees_secrets_and_what_the_form_has_no_field_for(
        qtbot, make_sidebar, store, kind: str, report) -> None:
    saved = ServerProfile(name="demo", kind=kind, command="python" if kind == "stdio" else "",
                          url="http://127.0.0.1:9/mcp" if kind == "http" else "", agent_sees_secrets=True,
                          roots=["file:///srv/project"], baseline="/srv/tools.baseline.json")
    store.save([saved])
    sidebar = make_sidebar()
    dialog = sidebar.edit_current()
    assert dialog.agent_secrets_check.isChecked()  # shown as saved
    dialog.timeout_spin.setValue(45)
    with qtbot.waitSignal(sidebar.profiles_changed, timeout=2000):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    [after] = store.load()
    assert after == replace(saved, timeout=45.0)  # the choice, the roots and the baseline all survive the edit
    qtbot.waitUntil(lambda: sidebar.dialog is None, timeout=2000)
    box = sidebar.edit_current().agent_secrets_check
    report.saw(f"The reopened profile dialog shows '{box.text()}' {'ticked' if box.isChecked() else 'unticked'}.")
    assert box.isChecked()


def test_ticking_the_agent_secrets_box_on_a_new_profile_saves_it_and_unticking_clears_it(
        qtbot, make_sidebar, store) -> None:
    sidebar = make_sidebar()
    dialog = sidebar.add_profile()
    assert not dialog.agent_secrets_check.isChecked()  # off by default: the seat hides secrets
    assert "Captures stay redacted either way" in dialog.agent_secrets_check.toolTip()
    dialog.name_edit.setText("trusted")
    dialog.command_edit.setText("python")
    qtbot.mouseClick(dialog.agent_secrets_check, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(sidebar.profiles_changed, timeout=2000):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert store.get("trusted").agent_sees_secrets is True
    assert json.loads(store.path.read_text("utf-8"))["profiles"][0]["agent_sees_secrets"] is True

    qtbot.waitUntil(lambda: sidebar.dialog is None, timeout=2000)
    dialog = sidebar.edit_current()
    qtbot.mouseClick(dialog.agent_secrets_check, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(sidebar.profiles_changed, timeout=2000):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert store.get("trusted").agent_sees_secrets is False


def test_cancelling_the_dialog_changes_nothing(qtbot, make_sidebar, store) -> None:
    store.save([stdio("demo")])
    sidebar = make_sidebar()
    dialog = sidebar.edit_current()
    dialog.name_edit.setText("renamed")
    dialog.reject()
    assert [p.name for p in store.load()] == ["demo"] and names(sidebar) == ["demo"]


def test_removing_a_profile_asks_first_and_cancel_keeps_it(qtbot, make_sidebar, store) -> None:
    store.save([stdio("keep"), stdio("drop")])
    sidebar = make_sidebar()
    sidebar.select("drop")
    qtbot.mouseClick(sidebar.remove_button, Qt.MouseButton.LeftButton)
    box = sidebar.dialog
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert box.text() == "Remove the saved server “drop”?"
    assert [p.name for p in store.load()] == ["keep", "drop"]  # nothing happens before the answer
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert [p.name for p in store.load()] == ["keep", "drop"]

    sidebar.select("drop")
    box = sidebar.remove_current()
    remove = next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole)
    with qtbot.waitSignal(sidebar.profiles_changed, timeout=2000):
        remove.click()
    assert [p.name for p in store.load()] == ["keep"] and names(sidebar) == ["keep"]


def test_f2_edits_and_delete_asks_to_remove_the_selected_profile(qtbot, make_sidebar, store) -> None:
    store.save([stdio("one")])
    sidebar = make_sidebar()
    sidebar.list.setFocus()
    qtbot.waitUntil(sidebar.list.hasFocus, timeout=2000)
    qtbot.keyClick(sidebar.list, Qt.Key.Key_F2)
    assert isinstance(sidebar.dialog, ProfileDialog) and sidebar.dialog.name_edit.text() == "one"
    sidebar.dialog.reject()
    sidebar.list.setFocus()
    qtbot.waitUntil(sidebar.list.hasFocus, timeout=2000)
    qtbot.keyClick(sidebar.list, Qt.Key.Key_Delete)
    assert isinstance(sidebar.dialog, QMessageBox)
    sidebar.dialog.reject()
    assert [p.name for p in store.load()] == ["one"]


def test_without_a_selection_edit_remove_and_connect_are_disabled(make_sidebar) -> None:
    sidebar = make_sidebar()
    assert not sidebar.connect_button.isEnabled() and not sidebar.edit_button.isEnabled()
    assert not sidebar.remove_button.isEnabled() and sidebar.add_button.isEnabled()
    assert sidebar.edit_current() is None and sidebar.remove_current() is None


def test_a_failed_save_is_shown_in_the_sidebar_not_raised(qtbot, make_sidebar, store, monkeypatch) -> None:
    sidebar = make_sidebar()

    def full_disk(profiles: object) -> None:
        raise ProfileError(f"{store.path} cannot be written: No space left on device.")

    monkeypatch.setattr(store, "save", full_disk)
    dialog = sidebar.add_profile()
    dialog.name_edit.setText("demo")
    dialog.command_edit.setText("python")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert sidebar.message() == f"{store.path} cannot be written: No space left on device."
    assert names(sidebar) == []


# -- connecting --------------------------------------------------------------------------------------------


def test_double_clicking_a_profile_asks_to_connect_to_it(qtbot, make_sidebar, store) -> None:
    store.save([stdio("one"), ServerProfile("two", "http", url="http://127.0.0.1:9/mcp")])
    sidebar = make_sidebar()
    where = sidebar.list.visualItemRect(sidebar.list.item(1)).center()
    requested: list[ServerProfile] = []
    sidebar.connect_requested.connect(requested.append)
    with qtbot.assertNotEmitted(sidebar.connect_requested):  # a double click starts with a click, which only selects
        qtbot.mouseClick(sidebar.list.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert sidebar.current_profile().name == "two"
    with qtbot.waitSignal(sidebar.connect_requested, timeout=2000) as signal:
        qtbot.mouseDClick(sidebar.list.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert signal.args == [ServerProfile("two", "http", url="http://127.0.0.1:9/mcp")]
    assert len(requested) == 1


def test_the_connect_button_and_the_enter_key_ask_to_connect_to_the_selected_profile(qtbot, make_sidebar,
                                                                                     store) -> None:
    store.save([stdio("one"), stdio("two")])
    sidebar = make_sidebar()
    sidebar.select("one")
    with qtbot.waitSignal(sidebar.connect_requested, timeout=2000) as signal:
        qtbot.mouseClick(sidebar.connect_button, Qt.MouseButton.LeftButton)
    assert signal.args[0].name == "one"
    sidebar.select("two")
    sidebar.list.setFocus()
    qtbot.waitUntil(sidebar.list.hasFocus, timeout=2000)
    with qtbot.waitSignal(sidebar.connect_requested, timeout=2000) as signal:
        qtbot.keyClick(sidebar.list, Qt.Key.Key_Return)
    assert signal.args[0].name == "two"


# -- importing ---------------------------------------------------------------------------------------------


def install_claude_desktop(home: Path) -> Path:
    path = home / ".config" / "Claude" / "claude_desktop_config.json"
    path.parent.mkdir(parents=True)
    shutil.copy(CONFIGS / "claude_desktop_config.json", path)
    return path


def table_text(dialog: ImportDialog) -> list[list[str]]:
    return [[dialog.table.item(r, c).text() for c in range(dialog.table.columnCount())]
            for r in range(dialog.table.rowCount())]


def test_importing_from_a_known_config_previews_it_and_adds_only_what_stays_checked(qtbot, make_sidebar, store,
                                                                                    home) -> None:
    store.save([stdio("github")])
    install_claude_desktop(home)
    sidebar = make_sidebar()
    qtbot.mouseClick(sidebar.import_button, Qt.MouseButton.LeftButton)
    dialog = sidebar.dialog
    assert isinstance(dialog, ImportDialog) and dialog.isVisible()
    assert dialog.source_combo.currentText() == "Claude Desktop — ~/.config/Claude/claude_desktop_config.json"
    assert dialog.source_combo.itemText(dialog.source_combo.count() - 1) == "Choose file…"
    assert dialog.status_label.text() == "Claude Desktop: 4 servers to import, 2 that cannot be."
    rows = table_text(dialog)
    assert [r[:3] for r in rows] == [
        ["filesystem", "stdio", "npx -y @modelcontextprotocol/server-filesystem /Users/me/Desktop /Users/me/Downloads"],
        ["github", "stdio", "docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN ghcr.io/github/github-mcp-server"],
        ["time", "stdio", "uvx mcp-server-time --local-timezone=Europe/Paris"],
        ["remote-notes", "http", "https://notes.example.com/mcp"],
    ]
    assert "a saved server has this name" in rows[1][3]
    assert [dialog.skipped_list.item(i).text() for i in range(dialog.skipped_list.count())] == [
        "broken-no-command — it has neither a command nor a url",
        "broken-args — its args are an object, not a list of strings"]

    # secrets are not on screen, in the table or in the details of any row
    shown = [text for row in rows for text in row]
    for row in range(dialog.table.rowCount()):
        dialog.table.setCurrentCell(row, 0)
        shown.append(dialog.details.toPlainText())
    assert "GITHUB_PERSONAL_ACCESS_TOKEN=[redacted]" in "\n".join(shown)
    assert "Authorization: [redacted]" in "\n".join(shown)
    assert not any("ghp_exampleSecretValue123" in text or "sk-live-notes-secret" in text for text in shown)

    dialog.set_checked(2, False)  # not "time"
    assert dialog.import_button.text() == "Import 3"
    assert [p.name for p in store.load()] == ["github"]  # nothing is added before Import
    with qtbot.waitSignal(sidebar.profiles_changed, timeout=2000):
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)

    saved = store.load()
    assert [p.name for p in saved] == ["github", "filesystem", "github (2)", "remote-notes"]
    assert saved[2].env["GITHUB_PERSONAL_ACCESS_TOKEN"] == "ghp_exampleSecretValue123"  # imported as it is
    assert saved[3].headers == {"Authorization": "Bearer sk-live-notes-secret"}
    assert names(sidebar) == ["github", "filesystem", "github (2)", "remote-notes"]
    assert sidebar.current_profile().name == "filesystem"


def test_cancelling_an_import_adds_nothing(qtbot, make_sidebar, store, home) -> None:
    install_claude_desktop(home)
    sidebar = make_sidebar()
    dialog = sidebar.import_profiles()
    assert dialog.table.rowCount() == 4
    qtbot.mouseClick(dialog.button_box.button(dialog.button_box.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    assert store.load() == [] and names(sidebar) == []


def test_the_import_dialog_previews_a_chosen_file_and_explains_a_broken_one(qtbot, home) -> None:
    dialog = ImportDialog([], home=home)
    qtbot.addWidget(dialog)
    assert dialog.status_label.text().startswith("No MCP config files were found")
    assert not dialog.import_button.isEnabled()

    dialog.choose_file(CONFIGS / "vscode" / ".vscode" / "mcp.json")
    assert dialog.status_label.text() == "VS Code: 3 servers to import, 1 that cannot be."
    assert [r[0] for r in table_text(dialog)] == ["Perplexity", "fetch", "old-sse"]
    assert "${input:perplexity-key} (Perplexity API Key)" in table_text(dialog)[0][3]
    dialog.set_checked(0, False)
    dialog.set_checked(2, False)
    assert [p.name for p in dialog.selected_profiles()] == ["fetch"]
    assert dialog.selected_profiles()[0].headers == {"Authorization": "Bearer ${env:FETCH_TOKEN}"}
    dialog.set_checked(1, False)
    assert not dialog.import_button.isEnabled()

    broken = CONFIGS / "broken-truncated.json"
    dialog.choose_file(broken)
    assert dialog.status_label.text() == f"{broken} is not valid JSON: Expecting ',' delimiter at line 5, column 1."
    assert dialog.table.rowCount() == 0 and dialog.selected_profiles() == []
    assert not dialog.import_button.isEnabled() and dialog.skipped_list.isHidden()
    assert dialog.source_combo.currentText().startswith("File — ")


# -- plain text everywhere ---------------------------------------------------------------------------------


def test_a_name_with_markup_is_shown_literally_everywhere(qtbot, make_sidebar, store, home, tmp_path) -> None:
    store.save([ServerProfile(MARKUP, "stdio", command="<i>cmd</i>", args=["<a href=x>y</a>"])])
    sidebar = make_sidebar()
    item = sidebar.list.item(0)
    assert item.text() == MARKUP
    assert item.data(SUMMARY_ROLE) == "stdio: '<i>cmd</i>' '<a href=x>y</a>'"
    assert "&lt;b&gt;x&lt;/b&gt;&lt;img src=q&gt;" in item.toolTip() and "<img" not in item.toolTip()
    sidebar.grab()  # paints the delegate
    assert rich_labels(sidebar) == []

    dialog = sidebar.edit_current()
    assert dialog.name_edit.text() == MARKUP and rich_labels(dialog) == []
    dialog.reject()

    box = sidebar.remove_current()
    assert box.textFormat() == Qt.TextFormat.PlainText and rich_labels(box) == []
    assert MARKUP in box.text()
    box.reject()

    config = tmp_path / "<i>markup.json"
    config.write_text(json.dumps({"mcpServers": {MARKUP: {"command": "<b>run</b>"}, "<i>bad</i>": 3}}))
    importer = ImportDialog([("File", config)], home=home)
    qtbot.addWidget(importer)
    assert table_text(importer)[0][:3] == [MARKUP, "stdio", "'<b>run</b>'"]
    assert importer.skipped_list.item(0).text().startswith("<i>bad</i> — ")
    assert rich_labels(importer) == []
    assert "&lt;i&gt;markup.json" in importer.source_combo.itemData(0, Qt.ItemDataRole.ToolTipRole)
    assert "&lt;b&gt;run&lt;/b&gt;" in importer.table.item(0, 2).toolTip()

    sidebar.show_message(MARKUP)
    assert sidebar.message() == MARKUP and rich_labels(sidebar) == []


# -- a damaged profiles file -------------------------------------------------------------------------------


def test_a_corrupt_profiles_file_shows_a_message_and_is_kept_aside(qtbot, make_sidebar, store) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text("{ this is not json")
    sidebar = make_sidebar()
    assert sidebar.message() == "Could not read the saved servers (a copy was kept)."
    tooltip = sidebar.message_label.toolTip()
    assert str(store.path) in tooltip and "is not valid JSON" in tooltip
    kept = list(store.path.parent.glob("profiles.json.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_text() == "{ this is not json"
    assert names(sidebar) == []

    # the sidebar keeps working: a new profile is saved, the damaged copy stays
    dialog = sidebar.add_profile()
    dialog.name_edit.setText("fresh")
    dialog.command_edit.setText("python")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert [p.name for p in store.load()] == ["fresh"] and kept[0].exists()
    assert sidebar.message() != ""  # still shown until dismissed
    qtbot.mouseClick(sidebar._dismiss, Qt.MouseButton.LeftButton)
    assert sidebar.message() == ""


def test_a_profiles_file_with_one_bad_entry_still_lists_the_good_ones(qtbot, make_sidebar, store) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text(json.dumps({"version": 1, "profiles": [stdio("good").to_json(), {"name": "bad"}]}))
    sidebar = make_sidebar()
    assert names(sidebar) == ["good"]
    assert "1 profile could be recovered" in sidebar.message_label.toolTip()
    assert [p.name for p in store.load()] == ["good"]
