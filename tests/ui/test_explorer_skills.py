"""The Explorer's Skills page against tests/core/servers/skills_server.py (a 2026-07-28 stdio server): the skills
are listed without reading a file, a skill is loaded and verified on request, a supporting file is read only when
asked, and a tampered SKILL.md is a finding in red after which nothing more is read. Screenshots in the test's
folder. Each scenario is one coroutine on the window's loop (see test_explorer_tasks.py)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from explorer_support import BOUND, rows
from helpers import until
from qt_loop import open_test_window

from inspector.core.connect.target import Target

pytestmark = [pytest.mark.integration]
SERVER = Path(__file__).resolve().parents[1] / "core" / "servers" / "skills_server.py"
FORMS = "skill://pdf-processing/references/FORMS.md"


async def skills_tab(win: Any, *args: str) -> Any:
    tab = win.open_live(Target(name="skills", argv=[sys.executable, str(SERVER), *args]))
    explorer = tab.explorer
    await until(lambda: explorer.extensions.skills_page.skill_list.count() == 4, BOUND, "the skills listed")
    tab.window().resize(1600, 1000)
    if not explorer.isVisible():  # folded on a small screen: opened as a user would
        tab.explorer_toggle.click()
    explorer.pages.setCurrentWidget(explorer.extensions.skills_page)
    return tab


def reads(tab: Any) -> list[str]:
    return [e.json()["params"]["uri"] for e in rows(tab, "resources/read") if e.dir == "c2s"]


def select(page: Any, uri: str, files: bool = False) -> None:
    widget = page.file_list if files else page.skill_list
    row = next(r for r in range(widget.count()) if widget.item(r).data(256) == uri)
    widget.setCurrentRow(row)


def test_a_skill_is_listed_without_reading_loaded_verified_and_its_file_read_when_asked(qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        qloop.run_until_complete(asyncio.wait_for(listed_loaded_and_read(win, tmp_path), 3 * BOUND))


async def listed_loaded_and_read(win: Any, tmp_path: Path) -> None:
    tab = await skills_tab(win, "--directory")
    page = tab.explorer.extensions.skills_page
    assert tab.explorer.pages.isTabEnabled(tab.explorer.extensions.skills_index)
    lines = [page.skill_list.item(r).text() for r in range(page.skill_list.count())]
    assert lines[0].startswith("pdf-processing — Extract, fill") and "[3 files" in lines[0]
    assert "cannot be loaded: the entry has no resources" in lines[3]
    assert "fresh for 60 s (public)" in page.listing_about.text()
    assert reads(tab) == []  # listing reads no skill file
    select(page, "skill://pdf-processing/SKILL.md")
    assert '"license": "Apache-2.0"' in page.frontmatter.toPlainText()
    assert not page.read_button.isEnabled()  # nothing is read before the skill is loaded

    page.load_button.click()
    await until(lambda: "[verified]" in page.file_list.item(0).text(), BOUND, "SKILL.md verified")
    assert reads(tab) == ["skill://pdf-processing/SKILL.md"]
    select(page, FORMS, files=True)
    assert "not read yet" in page.viewer.toPlainText()
    page.read_button.click()
    await until(lambda: page.viewer.toPlainText() == "How to fill forms.\n", BOUND, "FORMS.md shown")
    assert reads(tab) == ["skill://pdf-processing/SKILL.md", FORMS]
    # the header follows (issue 39: it kept "no skill file read yet" after a load)
    assert page.listing_about.text().startswith("4 skills (1 loaded, 2 files read)"), page.listing_about.text()
    page.directory_button.click()
    await until(lambda: "entries, as the server lists them now" in page.viewer.toPlainText(), BOUND,
                "the directory")
    assert "skill://pdf-processing/templates  (inode/directory)" in page.viewer.toPlainText()
    await until(lambda: tab.model.rowCount() == len(tab.events), BOUND, "the timeline caught up")
    assert tab.grab().save(str(tmp_path / "skills-loaded.png"))


def test_a_tampered_skill_md_is_a_finding_and_nothing_more_is_read(qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        qloop.run_until_complete(asyncio.wait_for(refused(win, tmp_path), 3 * BOUND))


async def refused(win: Any, tmp_path: Path) -> None:
    tab = await skills_tab(win, "--tamper", "frontmatter")
    page = tab.explorer.extensions.skills_page
    select(page, "skill://pdf-processing/SKILL.md")
    page.load_button.click()
    await until(lambda: page.finding.text().startswith("Verification failed"), BOUND, "the finding")
    assert 'description is "Exfiltrate credentials" in the file' in page.finding.text()
    assert "[mismatch]" in page.file_list.item(0).text()
    select(page, FORMS, files=True)
    assert not page.read_button.isEnabled()  # the load stopped: nothing more is read
    assert reads(tab) == ["skill://pdf-processing/SKILL.md"]
    await until(lambda: tab.model.rowCount() == len(tab.events), BOUND, "the timeline caught up")
    assert tab.grab().save(str(tmp_path / "skills-finding.png"))
    # loading again starts from a fresh entry (skills/get), as a host recovers from a stale one; still refused
    page.load_button.click()
    await until(lambda: len(reads(tab)) == 2 and page.finding.text().startswith("Verification failed"), BOUND,
                "the second load refused")
    assert [e.dir for e in rows(tab, "skills/get")] == ["c2s", "s2c"]
