"""The rules file (inspector/core/intercept/rules.py): what it accepts, each refusal one sentence naming the rule
and the key, and the export that reads back as the same rules."""

from __future__ import annotations

import json

import pytest

from inspector.core.intercept.rules import (
    MAX_DELAY_MS,
    MAX_FILE_BYTES,
    Rule,
    Rules,
    RulesError,
    When,
    load_rules,
    parse_rules,
    pointer_parts,
    rules_json,
)

ISSUE_EXAMPLE = {"rules": [
    {"when": {"dir": "s2c", "method": "tools/call", "tool": "get-sum"}, "do": "rewrite",
     "set": {"/result/content/0/text": "forty-two"}},
    {"when": {"dir": "c2s", "method": "tools/list"}, "do": "delay", "ms": 800},
    {"when": {"dir": "s2c", "method": "tools/call", "match": "secret"}, "do": "drop"},
    {"when": {"dir": "s2c", "method": "tools/call"}, "do": "error", "code": -32000, "message": "injected"},
    {"when": {"dir": "c2s", "method": "tools/call"}, "do": "pause"},
]}


def refusal(obj) -> str:
    with pytest.raises(RulesError) as caught:
        parse_rules(obj, "r.json")
    return str(caught.value)


def test_the_issues_example_reads_as_five_numbered_rules():
    rules = parse_rules(ISSUE_EXAMPLE)
    assert [(r.number, r.do) for r in rules.rules] == [(1, "rewrite"), (2, "delay"), (3, "drop"), (4, "error"),
                                                       (5, "pause")]
    first = rules.rules[0]
    assert first.when == When("s2c", "tools/call", "get-sum", None)
    assert first.set == (("/result/content/0/text", "forty-two"),)
    assert rules.rules[1].ms == 800
    assert (rules.rules[3].code, rules.rules[3].message, rules.rules[3].has_data) == (-32000, "injected", False)


def test_the_export_reads_back_as_the_same_rules():
    rules = parse_rules({"rules": [*ISSUE_EXAMPLE["rules"],
                                   {"do": "error", "code": 1, "message": "m", "data": None, "name": "n",
                                    "enabled": False}]})
    again = parse_rules(json.loads(rules_json(rules)))
    assert again == rules
    assert json.loads(rules_json(rules))["rules"][:5] == ISSUE_EXAMPLE["rules"]
    assert json.loads(rules_json(rules))["rules"][5] == {"when": {}, "do": "error", "code": 1, "message": "m",
                                                         "data": None, "enabled": False, "name": "n"}


def test_a_bare_list_is_read_as_the_rules():
    assert parse_rules([{"do": "drop"}]).rules == (Rule(1, When(), "drop"),)


def test_labels_name_the_number_the_name_and_the_action():
    named = parse_rules([{"do": "delay", "ms": 1}, {"do": "drop", "name": "lose it"}]).rules
    assert [rule.label() for rule in named] == ["rule 1 (delay)", 'rule 2 "lose it" (drop)']
    assert When().describe() == "any message"
    assert When("s2c", "tools/call", "add", "x+").describe() == "s2c tools/call tool add matching /x+/"


@pytest.mark.parametrize(("obj", "sentence"), [
    ({"rules": [], "extra": 1}, "r.json: unknown key 'extra' at the top (a rules file has only \"rules\")"),
    ({}, 'r.json: there is no "rules" list'),
    ({"rules": {"do": "drop"}}, 'r.json: "rules" must be a list of rules, not an object'),
    ({"rules": ["drop"]}, 'r.json: rule 1 must be an object with "when" and "do", not text'),
    ({"rules": [{"when": {}}]}, 'r.json: rule 1 has no "do" (one of rewrite, delay, drop, error, pause)'),
    ({"rules": [{"do": 3}]}, "r.json: rule 1: unknown action 3 (one of rewrite, delay, drop, error, pause)"),
    ({"rules": [{"do": "drop", "ms": 3}]}, "r.json: rule 1: unknown key 'ms' for a drop rule"),
    ({"rules": [{"do": "error", "code": 1, "message": "m", "ms": 3}]},
     "r.json: rule 1: unknown key 'ms' for an error rule"),
    ({"rules": [{"do": "delay"}]}, "r.json: rule 1: a delay rule needs 'ms'"),
    ({"rules": [{"do": "error", "code": 1}]}, "r.json: rule 1: an error rule needs 'message'"),
    ({"rules": [{"do": "drop", "when": []}]}, 'r.json: rule 1: "when" must be an object, not a list'),
    ({"rules": [{"do": "drop", "when": {"id": "1"}}]},
     "r.json: rule 1: unknown condition 'id' in \"when\" (one of dir, method, tool, match)"),
    ({"rules": [{"do": "drop", "when": {"method": 1}}]}, "r.json: rule 1: \"when\" 'method' is text, not a number"),
    ({"rules": [{"do": "drop", "when": {"dir": "up"}}]},
     'r.json: rule 1: "dir" is c2s (client to server) or s2c (server to client), not "up"'),
    ({"rules": [{"do": "drop", "enabled": "no"}]}, 'r.json: rule 1: "enabled" is true or false, not "no"'),
    ({"rules": [{"do": "drop", "name": 5}]}, 'r.json: rule 1: "name" is text, not a number'),
    ({"rules": [{"do": "delay", "ms": -1}]},
     f'r.json: rule 1: "ms" is a whole number of milliseconds from 0 to {MAX_DELAY_MS}, not -1'),
    ({"rules": [{"do": "delay", "ms": True}]},
     f'r.json: rule 1: "ms" is a whole number of milliseconds from 0 to {MAX_DELAY_MS}, not true'),
    ({"rules": [{"do": "delay", "ms": 1.5}]},
     f'r.json: rule 1: "ms" is a whole number of milliseconds from 0 to {MAX_DELAY_MS}, not 1.5'),
    ({"rules": [{"do": "error", "code": "x", "message": "m"}]},
     'r.json: rule 1: "code" is a JSON-RPC error code (a whole number), not "x"'),
    ({"rules": [{"do": "error", "code": 1, "message": None}]}, 'r.json: rule 1: "message" is text, not null'),
    ({"rules": [{"do": "rewrite", "set": {}}]},
     'r.json: rule 1: "set" maps JSON Pointers to values ({"/result/content/0/text": "..."}), not {}'),
    ({"rules": [{"do": "rewrite", "set": {"": 1}}]},
     "r.json: rule 1: '' is not a JSON Pointer (RFC 6901: it starts with \"/\", as in \"/result/content/0/text\")"),
    ({"rules": [{"do": "rewrite", "set": {"/a~2": 1}}]},
     "r.json: rule 1: '/a~2' is not a JSON Pointer (a \"~\" is written ~0, and a \"/\" inside a name ~1)"),
])
def test_each_refusal_is_one_sentence_naming_the_rule_and_the_key(obj, sentence):
    assert refusal(obj) == sentence


def test_a_pattern_the_matcher_cannot_read_is_refused():
    sentence = refusal([{"do": "drop"}, {"do": "drop", "when": {"match": "a)"}}])
    assert sentence.startswith('r.json: rule 2: the pattern "a)" cannot be read ('), sentence
    assert "\n" not in sentence


def test_a_long_value_is_cut_in_the_sentence():
    sentence = refusal([{"do": "x" * 500}])
    assert len(sentence) < 140 and "…" in sentence


def test_pointers_unescape_their_tokens():
    assert pointer_parts("/a~1b/c~0d/~01/0/-") == ["a/b", "c~d", "~1", "0", "-"]
    assert pointer_parts("/") == [""]


def test_a_pause_rule_is_refused_where_nobody_decides_and_a_disabled_one_is_not():
    rules = parse_rules([{"do": "drop"}, {"do": "pause", "when": {"dir": "c2s"}}], "r.json")
    with pytest.raises(RulesError, match=r"^r\.json: rule 2 pauses messages, which needs a person to decide; tap "
                                         r"runs without one"):
        rules.refuse_pause("tap")
    parse_rules([{"do": "pause", "enabled": False}]).refuse_pause("record")  # no exception
    assert not Rules() and parse_rules([{"do": "drop"}])


def test_load_rules_says_what_is_wrong_with_the_file(tmp_path):
    path = tmp_path / "r.json"
    with pytest.raises(RulesError, match=f"^{tmp_path}/r.json: no such rules file$"):
        load_rules(path)
    with pytest.raises(RulesError, match=f"^{tmp_path} is a folder, not a rules file$"):
        load_rules(tmp_path)
    path.write_bytes(b"{\"rules\": \"\xff\"}")
    with pytest.raises(RulesError, match="is JSON text in UTF-8, and this is not$"):
        load_rules(path)
    path.write_text("{'rules': []}")
    with pytest.raises(RulesError, match=r"^.*r\.json: not JSON \(Expecting property name"):
        load_rules(path)
    path.write_text('{"rules": [{"do": "rewrite", "set": {"/result/x": NaN}}]}')
    with pytest.raises(RulesError, match=r"^.*r\.json: not JSON \(NaN is not a JSON number\)$"):
        load_rules(path)
    path.write_bytes(b" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(RulesError, match=r"is too large for a rules file \(at most 4"):
        load_rules(path)
    path.write_text(json.dumps(ISSUE_EXAMPLE))
    loaded = load_rules(path)
    assert loaded == parse_rules(ISSUE_EXAMPLE) and loaded.source == str(path)
