"""A serve tab's Faults panel without a process: over a real socket pair to a stand-in twin (the core's
FaultToggles on real Faults), a box turns a fault on and off, a refused value is said in red and the box shows
what the twin has in force, a value edited while its fault is on is sent, and the twin's end greys the rows."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from helpers import until
from PySide6.QtWidgets import QTabWidget

from inspector.core.serve.fault_link import FaultsWindowSide, FaultToggles
from inspector.core.serve.faults import Faults
from inspector.ui.intercept.fault_control import ENDED
from inspector.ui.intercept.fault_panel import attach_faults

BOUND = 10.0


async def twin(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, faults: Faults) -> None:
    """serve's side of the link, as the paced loop runs it: each line of the window's made, then answered."""
    toggles = FaultToggles(faults)
    toggles.answer = lambda obj: writer.write(json.dumps(obj).encode() + b"\n")
    toggles.answer(toggles.in_force())
    while line := await reader.readline():
        toggles.request(json.loads(line))
        toggles.apply()


def test_the_faults_panel_shows_what_the_twin_has_in_force_and_says_a_refusal_in_red(qapp, qloop, qtbot):
    faults = Faults(seed=3)
    tabs = QTabWidget()
    qtbot.addWidget(tabs)

    async def scenario() -> list[object]:
        ours, theirs = socket.socketpair()
        reader, writer = await asyncio.open_unix_connection(sock=ours)
        serve_reader, serve_writer = await asyncio.open_unix_connection(sock=theirs)
        serving = asyncio.ensure_future(twin(serve_reader, serve_writer, faults))
        panel = attach_faults(tabs, FaultsWindowSide(reader, writer, {"type": "faults", "pid": 1}))
        running = asyncio.ensure_future(panel.control.run())
        seen: list[object] = []
        await until(lambda: panel.control.seed == 3, BOUND, "what the twin has in force")
        seen.append((tabs.currentWidget() is panel, panel.message.text(), panel.seed.text()))
        panel.fields["latency"].setText("soon")
        panel.boxes["latency"].click()
        await until(lambda: panel.message.property("failure"), BOUND, "the refusal")
        seen.append((panel.message.text(), panel.boxes["latency"].isChecked(), faults.active()))
        panel.fields["latency"].setText("250")
        panel.boxes["latency"].click()
        await until(lambda: panel.control.in_force == {"latency": "250"}, BOUND, "latency in force")
        seen.append((panel.boxes["latency"].isChecked(), panel.message.text()))
        panel.fields["latency"].setText("100-200")
        panel.fields["latency"].editingFinished.emit()
        panel.boxes["junk"].click()
        await until(lambda: panel.control.in_force == {"latency": "100-200", "junk": ""}, BOUND, "the edit and junk")
        seen.append(faults.active())
        panel.boxes["latency"].click()
        await until(lambda: panel.control.in_force == {"junk": ""}, BOUND, "latency cleared")
        seen.append((panel.boxes["latency"].isChecked(), panel.boxes["junk"].isChecked()))
        serve_writer.close()  # the twin ends
        await asyncio.wait_for(running, BOUND)
        seen.append((panel.boxes["junk"].isEnabled(), panel.fields["latency"].isEnabled(), panel.message.text()))
        panel.control.close()
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await serving
        return seen

    start, refused, on, edited, off, ended = qloop.run_until_complete(scenario())
    assert start == (True, "no fault in force: the twin answers as recorded", "random choices: --seed 3")
    assert refused == ("--fault latency=soon: 'soon' is not a number of milliseconds up to 3,600,000, or MIN-MAX",
                       False, {})
    assert on == (True, "in force: each answer waits 250 ms")
    assert edited == {"latency": "100-200", "junk": ""}
    assert off == (False, True)
    assert ended == (False, False, ENDED)
