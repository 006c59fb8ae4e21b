"""Fuzzing the intercept engine (inspector/core/intercept/engine.py): whatever a peer sends, and whatever a rule
says, the engine answers with a verdict and never raises; what it sends on in a message's place is JSON, and what
the host records for the verdict (records.py) is in the roles of the capture format."""

from __future__ import annotations

import json

import pytest
from fuzz_support import Examples, pieces_and_bytes, run_property
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.intercept.engine import Interceptor
from inspector.core.intercept.records import records
from inspector.core.intercept.rules import parse_rules
from inspector.core.wire.intercepted import ROLES

PIECES = [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}',
    b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"3"}]}}',
    b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}', b'[{"jsonrpc":"2.0","id":2,"result":{}}]',
    b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}', b'{"t":"\\ud800"}', b'{"t":NaN}',
    b"[" * 1000 + b"]" * 1000, b"[" * 300 + b"]" * 300, b'{"id":' + b"[" * 999 + b"]" * 999 + b',"method":"x"}',
    b"\xff", b"null", b"{", b"}", b",", b'"', "é\u2028".encode(),
]
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=20)
#: the pieces whole half the time: the hostile ones (deep, surrogates, long integers) are where engines break
MESSAGES = st.one_of(
    st.sampled_from(PIECES), st.sampled_from(PIECES), st.sampled_from(PIECES),
    pieces_and_bytes(PIECES, max_pieces=3),
    st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": JSON, "method": st.sampled_from(["tools/call", "x"]),
                           "params": JSON}).map(lambda m: json.dumps(m).encode()),
    st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": JSON, "result": JSON})
    .map(lambda m: json.dumps(m).encode()),
)
POINTERS = st.sampled_from(["/x", "/result", "/result/content/0/text", "/params/arguments/a", "/0/result", "/-",
                            "/a~1b", "/result/content/-", "/id", "/params/x/y/z"])
RULES = st.one_of(
    st.builds(lambda p, v: {"do": "rewrite", "set": {p: v}}, POINTERS, JSON),
    st.builds(lambda ms: {"do": "delay", "ms": ms}, st.integers(0, 5000)),
    st.just({"do": "drop"}),
    st.builds(lambda code, data: {"do": "error", "code": code, "message": "m", "data": data}, st.integers(), JSON),
    st.just({"do": "pause"}),
).flatmap(lambda rule: st.builds(lambda when: {**rule, "when": when}, st.just({}) | st.fixed_dictionaries({}, optional={
    "dir": st.sampled_from(["c2s", "s2c"]), "method": st.sampled_from(["tools/call", "x"]),
    "tool": st.sampled_from(["add", "echo"]), "match": st.sampled_from(["a", "(a+)+$", "\\d{3,}", "^\\["])})))


@pytest.mark.report("fuzz", "intercept engine: arbitrary messages both ways under arbitrary rules get a verdict, "
                            "never an exception; what goes on in a message's place is JSON", surface="core")
def test_arbitrary_messages_under_arbitrary_rules_get_a_verdict_and_never_raise(report):
    examples = Examples()

    @given(rules=st.lists(RULES, min_size=1, max_size=3), messages=st.lists(
        st.tuples(st.sampled_from(["c2s", "s2c"]), MESSAGES), min_size=1, max_size=6))
    def prop(rules: list[dict], messages: list[tuple[str, bytes]]) -> None:
        examples()
        interceptor = Interceptor(parse_rules(rules))
        # the drawn messages, then every hostile piece each way under the same rules
        for direction, raw in [*messages, *((d, piece) for piece in PIECES for d in ("c2s", "s2c"))]:
            verdict = interceptor.decide(direction, raw)
            assert isinstance(verdict.out, bytes)
            if verdict.changed:
                json.loads(verdict.out)
            if verdict.answer is not None:
                assert json.loads(verdict.answer)["error"]["message"] == "m"
            for record in records(direction, raw, verdict, arrived=0.0):
                assert record.mark is None or record.mark["role"] in ROLES

    run_property(report, examples, prop)
