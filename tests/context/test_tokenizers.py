"""The offline tokenisers: the shipped encodings are tiktoken's (same hashes, same patterns, known counts), no
network is touched, a damaged file is a sentence, and ``bytes`` is an estimate."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from helpers import ROOT

from inspector.core.context import tokenizers
from inspector.core.context.tokenizers import ENCODINGS, TokenizerError, tokenizer


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_the_shipped_encodings_have_the_patterns_special_tokens_and_hashes_tiktoken_defines(name, monkeypatch):
    from tiktoken_ext import openai_public

    seen: list[str | None] = []

    def no_download(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
        seen.append(expected_hash)
        return {}

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", no_download)
    theirs = openai_public.ENCODING_CONSTRUCTORS[name]()
    assert theirs["pat_str"] == ENCODINGS[name].pat_str
    assert theirs["special_tokens"] == ENCODINGS[name].special_tokens
    assert seen == [ENCODINGS[name].sha256]


@pytest.mark.parametrize(("name", "ids"), [("o200k_base", [24912, 2375]), ("cl100k_base", [15339, 1917])])
def test_hello_world_is_the_token_ids_tiktoken_s_own_tests_expect(name, ids):
    assert tokenizers.load_encoding(name).encode("hello world") == ids
    assert tokenizer(name).count("hello world") == 2


def test_tiktoken_s_readme_example_counts_six_cl100k_tokens():
    assert tokenizer("cl100k_base").count("tiktoken is great!") == 6


def test_special_tokens_text_in_a_description_is_counted_as_text_not_refused():
    assert tokenizer("o200k_base").count("<|endoftext|>") > 1


def test_the_byte_estimate_is_a_token_per_four_utf8_bytes_rounded_up():
    tok = tokenizer("bytes")
    assert (tok.count(""), tok.count("abcd"), tok.count("abcde"), tok.count("é")) == (0, 1, 2, 1)
    assert "estimate" in tok.name


def test_an_unknown_tokeniser_is_a_sentence_naming_the_known_ones():
    with pytest.raises(TokenizerError, match="o200k_base, cl100k_base, bytes"):
        tokenizer("gpt2")


def test_a_damaged_encoding_file_is_a_sentence_not_wrong_counts(monkeypatch):
    spec = ENCODINGS["cl100k_base"]
    monkeypatch.setitem(ENCODINGS, "cl100k_base", type(spec)(spec.pat_str, spec.special_tokens, "0" * 64))
    with pytest.raises(TokenizerError, match="damaged"):
        tokenizers.ranks("cl100k_base")


def test_counting_tokens_touches_no_network_and_no_tiktoken_cache(tmp_path):
    """In a process of its own whose every socket use raises (an audit hook), with tiktoken's cache pointed at an
    empty folder: both encodings load from the shipped files, and the cache stays empty."""
    script = textwrap.dedent("""
        import sys
        def no_network(event, args):
            if event.startswith("socket.") or event.startswith("urllib."):
                raise RuntimeError(f"network touched: {event}")
        sys.addaudithook(no_network)
        from inspector.core.context.tokenizers import tokenizer
        print(tokenizer("o200k_base").count("hello world"), tokenizer("cl100k_base").count("hello world"))
    """)
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "2"]
    assert list(cache.iterdir()) == []
