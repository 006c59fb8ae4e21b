"""The command line's shared argument types (inspector/cli/argtypes.py) and the one set of server options."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from inspector.cli.argtypes import milliseconds, non_negative, positive, size_pair, timeout_or_none
from inspector.cli.main import build_parser


def test_seconds_must_be_numbers_and_positive_ones_more_than_zero() -> None:
    assert non_negative("0") == 0.0 and positive("2.5") == 2.5
    for bad, why in (("x", "not a number"), ("-1", "0 or more"), ("nan", "0 or more")):
        with pytest.raises(argparse.ArgumentTypeError, match=why):
            non_negative(bad)
    with pytest.raises(argparse.ArgumentTypeError, match="more than 0"):
        positive("0")


def test_diffs_latency_threshold_is_read_and_refused_as_milliseconds() -> None:
    assert milliseconds("200") == 200.0
    with pytest.raises(argparse.ArgumentTypeError, match="'x' is not a number of milliseconds"):
        milliseconds("x")
    parser = build_parser()
    with contextlib.redirect_stderr(io.StringIO()) as said, pytest.raises(SystemExit):
        parser.parse_args(["diff", "a.jsonl", "b.jsonl", "--latency-threshold", "soon"])
    assert "'soon' is not a number of milliseconds" in said.getvalue()


def test_a_timeout_of_none_or_zero_is_no_timeout() -> None:
    assert timeout_or_none("none") == timeout_or_none("0") == float("inf")
    assert timeout_or_none("3") == 3.0


def test_a_size_pair_is_width_by_height_within_bounds() -> None:
    assert size_pair("800X600") == (800, 600)
    with pytest.raises(argparse.ArgumentTypeError, match="800x600"):
        size_pair("50x50")


def _help(*words: str) -> str:
    """What ``mcp-inspector WORDS --help`` prints."""
    out = io.StringIO()
    with pytest.raises(SystemExit), contextlib.redirect_stdout(out):
        build_parser(only=list(words)).parse_args([*words, "--help"])
    return out.getvalue()


SERVER_OPTIONS = ("--handshake", "--timeout", "--no-redact", "--answer", "--url", "--max-message")


@pytest.mark.parametrize("words", [("call",), ("app",)])
def test_the_commands_whose_session_declares_roots_offer_root(words: tuple[str, ...]) -> None:
    text = _help(*words)
    assert "--root" in text and all(option in text for option in SERVER_OPTIONS)


@pytest.mark.parametrize("words", [("run",), ("load",), ("baseline",), ("diff",)])
def test_the_commands_that_would_not_pass_roots_on_do_not_offer_root(words: tuple[str, ...]) -> None:
    text = _help(*words)
    assert "--root" not in text and all(option in text for option in SERVER_OPTIONS)
