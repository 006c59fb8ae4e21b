"""``main`` builds the parser for the words typed (``build_parser(only=...)``): only the command named gets its
arguments. What the user sees and gets must be what the full parser gives: the same help, the same parse."""

from __future__ import annotations

import argparse

import pytest

from inspector.cli.main import build_parser


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


FULL = commands(build_parser())


def test_the_top_level_help_lists_every_command_with_its_help_whatever_was_typed():
    assert build_parser(only=["--version"]).format_help() == build_parser().format_help()
    assert list(commands(build_parser(only=[]))) == list(FULL)


@pytest.mark.parametrize("name", sorted(FULL))
def test_the_command_typed_gets_the_same_arguments_and_help_as_in_the_full_parser(name):
    built = commands(build_parser(only=["--timeout", "5", name, "x"]))[name]
    assert built.format_help() == FULL[name].format_help()
    assert len(built._actions) == len(FULL[name]._actions) > 1


def test_a_command_not_typed_gets_no_arguments():
    built = commands(build_parser(only=["show", "f.jsonl"]))
    assert [len(parser._actions) for name, parser in built.items() if name != "show"] == [1] * (len(FULL) - 1)


@pytest.mark.parametrize("argv", [
    ["record", "--out", "s.jsonl", "--idle", "2", "--answer", "elicitation=decline"],
    ["check", "--format", "sarif", "--requirements", "2026-07-28"],
    ["call", "get-sum", "a=1", "--json", "--timeout", "3"],
    ["--open", "record"],  # a command's name as an option's value: no command at all
    ["--url", "http://127.0.0.1:9/mcp", "--oauth"],
])
def test_the_words_typed_parse_the_same_as_with_the_full_parser(argv):
    assert build_parser(only=argv).parse_args(argv) == build_parser().parse_args(argv)


def test_argparse_asks_gettext_once_per_word_while_building_and_as_before_afterwards(monkeypatch):
    asked: list[str] = []

    def gettext(message: str) -> str:
        asked.append(message)
        return message

    monkeypatch.setattr(argparse, "_", gettext)
    build_parser()
    assert asked and len(asked) == len(set(asked))  # each word once, for the whole parser of 31 commands
    assert argparse._ is gettext  # restored: a parser made later translates as argparse does
