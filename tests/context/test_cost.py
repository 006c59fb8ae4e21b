"""What a listing costs: each part and the whole of every item, the instructions, the total as their sum, the
largest first; the report in JSON as the issue sets it out."""

from __future__ import annotations

import json

import pytest
from helpers import ROOT

from inspector.core.context.cost import ContextError, Listing, costs, text_of, total
from inspector.core.context.report import examine, to_json
from inspector.core.context.tokenizers import tokenizer

TOOL = {"name": "echo", "title": "Echo", "description": "Echoes back the input string",
        "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}},
        "annotations": {"readOnlyHint": True}, "_meta": {"x": 1}}


def test_a_tool_is_costed_part_by_part_and_as_its_compact_json_definition():
    tok = tokenizer()
    [cost] = costs(Listing(tools=[TOOL]), tok)
    assert list(cost.parts) == ["name", "title", "description", "inputSchema", "annotations", "other"]
    assert cost.parts["description"].tokens == tok.count("Echoes back the input string")
    assert cost.parts["inputSchema"].bytes == len(text_of(TOOL["inputSchema"]).encode())
    assert cost.cost.bytes == len(json.dumps(TOOL, separators=(",", ":")).encode())
    assert cost.cost.tokens > sum(p.tokens for p in cost.parts.values()) - 1


def test_the_total_is_the_sum_of_every_item_and_the_instructions_largest_first():
    tok = tokenizer("cl100k_base")
    listing = Listing(tools=[TOOL, {"name": "x", "inputSchema": {"type": "object"}}],
                      prompts=[{"name": "greet", "description": "Say hello"}],
                      templates=[{"uriTemplate": "demo://{x}", "name": "t"}], instructions="Use these tools well.")
    items = costs(listing, tok)
    assert [c.kind for c in items].count("instructions") == 1
    assert [c.cost.tokens for c in items] == sorted((c.cost.tokens for c in items), reverse=True)
    whole = total(items)
    assert whole.tokens == sum(c.cost.tokens for c in items)
    assert whole.bytes == sum(c.cost.bytes for c in items)


def test_the_json_report_names_the_tokeniser_and_has_totals_tools_and_findings():
    tools = json.loads((ROOT / "tests" / "data" / "everything-tools.json").read_text())["tools"]
    doc = to_json(examine(Listing(tools=tools), tokenizer(), "everything", budget=50))
    assert doc["tokenizer"] == "o200k_base"
    assert doc["totals"]["tokens"] == sum(t["tokens"] for t in doc["tools"])
    assert doc["totals"]["bytes"] == sum(t["bytes"] for t in doc["tools"])
    assert {t["name"] for t in doc["tools"]} == {t["name"] for t in tools}
    assert all(t["tokens"] > 0 and t["bytes"] > 0 for t in doc["tools"])
    assert doc["findings"] == [] and doc["overBudget"] is True


def test_the_byte_estimate_is_named_in_the_report():
    report = examine(Listing(tools=[TOOL]), tokenizer("bytes"), "x")
    assert report.tokenizer.startswith("bytes")
    assert report.totals.tokens == -(-report.totals.bytes // 4)


def test_a_definition_nested_too_deep_to_write_out_is_a_sentence_not_a_recursion_error():
    deep: object = 1
    for _ in range(5000):
        deep = {"a": deep}
    with pytest.raises(ContextError, match="nested too deep"):
        costs(Listing(tools=[{"name": "deep", "inputSchema": deep}]), tokenizer("bytes"))
