"""The "Test a client…" dialog on its own, without a client process: the scenarios listed with what each checks
(the defaults ticked), what keeps Run from starting said in one sentence, a scenario's result as a tree whose
checks lead to the client's message in the capture, and a command that cannot start said in one sentence."""

from __future__ import annotations

from pathlib import Path

from helpers import until

from inspector.core.clientbench.bench import ScenarioResult
from inspector.core.clientbench.checks import FAILED, LIFECYCLE, PASSED, REQUESTS, CheckResult
from inspector.core.clientbench.names import DEFAULT_SCENARIOS, SCENARIO_NAMES
from inspector.core.clientbench.verdicts import Outcome
from inspector.core.tasks import Tasks
from inspector.ui.clientbench.bench_run import BenchRun
from inspector.ui.clientbench.dialog import TestClientDialog, open_spec_link


def dialog_for(tmp_path: Path) -> TestClientDialog:
    return TestClientDialog(BenchRun(Tasks()), lambda: tmp_path / "run")


def test_every_scenario_is_listed_with_what_it_checks_and_the_defaults_are_ticked(qapp, tmp_path):
    dialog = dialog_for(tmp_path)
    assert list(dialog.boxes) == list(SCENARIO_NAMES)
    assert dialog.ticked() == list(DEFAULT_SCENARIOS)  # no-answer, which lasts as long as the client waits, is not
    assert "ping" in dialog.boxes["ping"].toolTip() and dialog.timeout.value() == 30


def test_what_keeps_run_from_starting_is_one_sentence_and_nothing_runs(qapp, tmp_path):
    dialog = dialog_for(tmp_path)
    said = []
    for command, tick in (("", True), ("python 'my client.py", True), ("python client.py", False)):
        dialog.command.setText(command)
        for box in dialog.boxes.values():
            box.setChecked(tick and box.text() == "handshake")
        dialog.run_button.click()
        said.append(dialog.state.text())
        assert dialog.run.state == "idle" and dialog.tree.topLevelItemCount() == 0
    assert said == ["Give the client's command: the program and its arguments.",
                    "The command cannot be read: No closing quotation (a quote left open?).",
                    "Tick at least one scenario."]


def broken_handshake(capture: Path) -> ScenarioResult:
    return ScenarioResult("handshake", [
        CheckResult("initialize-first", PASSED, "the client opened with initialize", LIFECYCLE, 2),
        CheckResult("initialized-sent", FAILED, "the client never sent notifications/initialized after the server "
                    "answered initialize (#3)", LIFECYCLE, 3),
        CheckResult("ids-unique", FAILED, "tools/list (#4) reuses the id 1 of initialize (#2)", REQUESTS, 4),
    ], Outcome(exit_code=0, seconds=0.4), capture)


def test_a_scenarios_checks_are_a_tree_and_activating_one_asks_for_its_message_in_the_capture(qapp, tmp_path):
    dialog = dialog_for(tmp_path)
    capture = tmp_path / "handshake.jsonl"
    dialog.show_result(broken_handshake(capture))
    [scenario] = [dialog.tree.topLevelItem(i) for i in range(dialog.tree.topLevelItemCount())]
    assert (scenario.text(0), scenario.text(1), scenario.text(2)) == ("handshake", "failed", "2 of 3 checks failed")
    assert scenario.isExpanded()
    checks = {scenario.child(i).text(0): scenario.child(i) for i in range(scenario.childCount())}
    assert checks["initialized-sent"].text(1) == "failed" and "notifications/initialized" in \
        checks["initialized-sent"].text(2)
    wanted = []
    dialog.message_wanted.connect(lambda path, seq: wanted.append((path, seq)))
    dialog.tree.setCurrentItem(checks["initialized-sent"])
    assert LIFECYCLE in dialog.detail.text() and f'href="{LIFECYCLE}"' in dialog.detail.text()
    dialog.tree.itemActivated.emit(checks["initialized-sent"], 0)
    assert wanted == [(capture, 3)]


def test_only_the_specifications_pages_are_opened_from_a_check(qapp):
    assert not open_spec_link("https://example.com/specification/2025-11-25")
    assert not open_spec_link("http://modelcontextprotocol.io/specification/2025-11-25")


def test_a_client_command_that_cannot_start_is_one_sentence_in_the_dialog(qapp, qloop, tmp_path):
    dialog = dialog_for(tmp_path)
    dialog.command.setText(str(tmp_path / "no-such-client"))
    for box in dialog.boxes.values():
        box.setChecked(box.text() in ("handshake", "ping"))

    async def scenario():
        dialog.run_button.click()
        assert not dialog.run_button.isEnabled()
        await until(lambda: dialog.run.state == "idle", 30, "the run to end")

    qloop.run_until_complete(scenario())
    said = dialog.state.text()
    assert said.startswith("The client's command ") and "cannot be started" in said and "\n" not in said
    assert [dialog.tree.topLevelItem(i).text(1) for i in range(2)] == ["incomplete", "incomplete"]
    assert dialog.run_button.isEnabled() and not dialog.stop_button.isEnabled()


def test_a_bench_that_fails_unexpectedly_ends_the_run_with_one_sentence(qapp, qloop, tmp_path, monkeypatch):
    import inspector.ui.clientbench.bench_run as bench_run

    async def broken(*_args, **_kwargs):
        raise RuntimeError("the scenario table is empty")

    monkeypatch.setattr(bench_run, "run_bench", broken)
    dialog = dialog_for(tmp_path)
    dialog.command.setText("python client.py")

    async def scenario():
        dialog.run_button.click()
        await until(lambda: dialog.run.state == "idle", 10, "the run to end")

    qloop.run_until_complete(scenario())
    assert dialog.state.text() == "The bench stopped: the scenario table is empty."
    assert dialog.run_button.isEnabled() and dialog.items["handshake"].text(1) == "not run"
