"""``serve --fault SPEC``: the specs read into :class:`Faults`, refused in one sentence, set and cleared while the
twin runs, and what each asks of an answer (sans-io)."""

from __future__ import annotations

import json

import pytest

from inspector.core.serve.faults import (
    JUNK_LINE,
    JUNK_SSE_FRAME,
    PADDING_KEY,
    FaultError,
    Faults,
    fault_error,
    junk_bytes,
)


def test_every_fault_reads_from_its_spec_and_is_described_for_a_person():
    faults = Faults(["latency=50-80", "error-rate=0.25", "junk", "drop=tools/call", "drop=resources/read",
                     "close-after=3", "oversize=2K", "list-changed=1.5"], seed=7)
    assert faults.active() == {"latency": "50-80", "error-rate": "0.25", "junk": "",
                               "drop": "resources/read,tools/call", "close-after": "3",
                               "oversize": "2048", "list-changed": "1.5"}
    assert faults.describe() == [
        "each answer waits 50-80 ms", "25% of requests answered with an internal error",
        "a line of junk before each answer", "resources/read, tools/call never answered",
        "the twin ends after 3 requests", "the next answer padded past 2 KiB", "tools/list_changed every 1.5 s"]
    assert Faults().describe() == [] and not Faults()


@pytest.mark.parametrize(("spec", "sentence"), [
    ("bogus", "--fault bogus: no such fault; choose one of latency, error-rate, junk, drop, close-after, oversize, "
              "list-changed (e.g. latency=200, error-rate=0.1, drop=tools/call)"),
    ("latency=", "--fault latency=: latency needs a value, e.g. --fault latency=200 or latency=50-500"),
    ("latency=fast", "--fault latency=fast: 'fast' is not a number of milliseconds up to 3,600,000, or MIN-MAX"),
    ("latency=500-100", "--fault latency=500-100: the range goes down (500 to 100); write MIN-MAX, e.g. "
                        "latency=100-500"),
    ("error-rate=1.5", "--fault error-rate=1.5: '1.5' is not a probability from 0 to 1"),
    ("error-rate=nan", "--fault error-rate=nan: 'nan' is not a probability from 0 to 1"),
    ("junk=yes", "--fault junk=yes: junk takes no value; write --fault junk"),
    ("drop=,", "--fault drop=,: name the method whose requests go unanswered, e.g. drop=tools/call"),
    ("close-after=0", "--fault close-after=0: '0' is not a whole number of requests, 1 or more"),
    ("oversize=huge", "--fault oversize=huge: 'huge' is not a size from 1 byte to 256 MiB (e.g. 100000, 64K, 2M)"),
    ("list-changed=0", "--fault list-changed=0: '0' is not a period in seconds from 0.01 to 86400"),
])
def test_a_bad_spec_is_one_sentence(spec, sentence):
    with pytest.raises(FaultError) as raised:
        Faults([spec])
    assert str(raised.value) == sentence


def test_a_fault_is_set_and_cleared_by_name_while_the_twin_runs():
    faults = Faults(["drop=a"])
    faults.set("drop=b")  # the window sets: in place of the same name's
    faults.set("latency=10")
    assert faults.active() == {"latency": "10", "drop": "b"}
    assert faults.clear("drop") and not faults.clear("drop")
    assert faults.spec("latency") == "latency=10" and faults.clear("latency")
    assert not faults
    with pytest.raises(FaultError):
        faults.clear("nothing")


def test_a_seed_makes_the_random_choices_again():
    def choices(seed: int) -> list[tuple[float, bool]]:
        faults = Faults(["latency=10-1000", "error-rate=0.5"], seed=seed)
        return [(faults.delay(), faults.errs()) for _ in range(20)]

    assert choices(42) == choices(42) != choices(43)
    assert all(0.01 <= delay <= 1.0 for delay, _ in choices(42))
    assert {errs for _, errs in choices(42)} == {True, False}
    assert Faults(["latency=250"]).delay() == 0.25 and Faults().delay() == 0.0
    assert not Faults(["error-rate=0"]).errs() and Faults(["error-rate=1"]).errs()


def test_oversize_pads_the_next_answer_past_the_size_once():
    faults = Faults(["oversize=1000"])
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "_meta": {"kept": True}}}
    padded = faults.padded(answer)
    assert padded is not None and len(json.dumps(padded, separators=(",", ":"))) > 1000
    assert padded["result"]["_meta"]["kept"] is True and PADDING_KEY in padded["result"]["_meta"]
    assert faults.padded(answer) is None and "oversize" not in faults.active()
    error = Faults(["oversize=500"]).padded({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m"}})
    assert error is not None and PADDING_KEY in error["error"]["data"]


def test_the_fault_error_says_it_is_a_fault_and_junk_breaks_each_transport():
    assert fault_error(7, "error-rate=0.5") == {"jsonrpc": "2.0", "id": 7, "error": {
        "code": -32603, "message": "Internal error: a fault injected by mcp-inspector serve (--fault error-rate=0.5), "
                                   "not the recorded answer"}}
    assert junk_bytes("stdio") == JUNK_LINE and b"\n" not in JUNK_LINE
    with pytest.raises(ValueError):
        json.loads(JUNK_LINE)
    assert junk_bytes("streamable-http") == JUNK_SSE_FRAME and JUNK_SSE_FRAME.endswith(b"\n\n")
    with pytest.raises(ValueError):
        json.loads(JUNK_SSE_FRAME.split(b"data: ")[1])
