"""Counting tokens offline: OpenAI's BPE encodings o200k_base (the default) and cl100k_base through tiktoken, from
the encoding files that ship in ``encodings/`` (never fetched: tiktoken alone would download them), or a byte
estimate (``bytes``: a token per four UTF-8 bytes, rounded up).

The Encoding is built here from the shipped ranks rather than by ``tiktoken.get_encoding``, which downloads a
file its cache lacks (and in some versions tries the network even with TIKTOKEN_CACHE_DIR and TIKTOKEN_OFFLINE
set: openai/tiktoken#513); tiktoken ships no encoding files (openai/tiktoken#317).

Each file's SHA-256 is checked against the one tiktoken pins for it before it is used (encodings/SOURCE), so a
damaged file is an error, never wrong counts. An encoding is loaded once a process (~0.3 s for o200k_base).
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import tiktoken

#: the tokeniser used when none is named
DEFAULT_TOKENIZER = "o200k_base"
#: a token per this many UTF-8 bytes, for ``bytes``
BYTES_PER_TOKEN = 4

# The pre-tokenising patterns and special tokens, as tiktoken_ext/openai_public.py (tiktoken 0.14.0) defines them
# (a test compares them with tiktoken's own); copied because that module's functions download the ranks.
_O200K_PAT = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
_CL100K_PAT = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|"""
               r"""\s*[\r\n]|\s+(?!\S)|\s""")


@dataclass(frozen=True)
class _Encoding:
    pat_str: str
    special_tokens: dict[str, int]
    sha256: str


ENCODINGS: dict[str, _Encoding] = {
    "o200k_base": _Encoding(_O200K_PAT, {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
                            "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    "cl100k_base": _Encoding(_CL100K_PAT, {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258,
                                           "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
                                           "<|endofprompt|>": 100276},
                             "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
}
#: every name ``--tokenizer`` takes
TOKENIZERS: tuple[str, ...] = (*ENCODINGS, "bytes")


class TokenizerError(Exception):
    """A tokeniser cannot be had; ``str()`` is a sentence."""


class Tokenizer(Protocol):
    name: str  #: how reports name it

    def count(self, text: str) -> int:
        """How many tokens ``text`` is."""


class ByteEstimate:
    """A token per :data:`BYTES_PER_TOKEN` UTF-8 bytes, rounded up: no encoding, an estimate."""

    name = f"bytes (an estimate: a token per {BYTES_PER_TOKEN} UTF-8 bytes)"

    def count(self, text: str) -> int:
        return math.ceil(len(text.encode("utf-8", "surrogatepass")) / BYTES_PER_TOKEN)


class Bpe:
    """A real BPE encoding, counted by tiktoken. Special tokens' text counts as ordinary text (a server's
    description is no prompt template), so ``<|endoftext|>`` in a description is no error."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._encoding = load_encoding(name)

    def count(self, text: str) -> int:
        # encode_ordinary: special tokens' text is plain text here; surrogates (lone ones are valid JSON strings)
        # are replaced as tiktoken would, so the count stays defined.
        try:
            return len(self._encoding.encode_ordinary(text))
        except UnicodeEncodeError:
            return len(self._encoding.encode_ordinary(text.encode("utf-8", "replace").decode("utf-8")))


def tokenizer(name: str = DEFAULT_TOKENIZER) -> Tokenizer:
    """The tokeniser ``name`` (one of :data:`TOKENIZERS`). Raises TokenizerError with a sentence."""
    if name == "bytes":
        return ByteEstimate()
    if name not in ENCODINGS:
        raise TokenizerError(f"no tokeniser named {name!r}: one of {', '.join(TOKENIZERS)}")
    return Bpe(name)


def ranks(name: str) -> dict[bytes, int]:
    """The merge ranks of the shipped encoding ``name``, checked against its SHA-256."""
    spec = ENCODINGS[name]
    try:
        packed = resources.files(__package__).joinpath("encodings", f"{name}.tiktoken.gz").read_bytes()
        data = gzip.decompress(packed)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise TokenizerError(f"the {name} encoding file that ships with mcp-inspector cannot be read ({exc}); "
                             "reinstall mcp-inspector, or use --tokenizer bytes") from None
    if hashlib.sha256(data).hexdigest() != spec.sha256:
        raise TokenizerError(f"the {name} encoding file that ships with mcp-inspector is damaged (its SHA-256 is "
                             "not tiktoken's); reinstall mcp-inspector, or use --tokenizer bytes")
    # "base64-token rank" a line, the file checked above: split once and pair up (half the time of a loop over
    # lines, ~0.17 s for o200k_base's 200,000 ranks).
    words = data.split()
    return dict(zip(map(binascii.a2b_base64, words[0::2]), map(int, words[1::2]), strict=True))


@cache
def load_encoding(name: str) -> tiktoken.Encoding:
    """tiktoken's Encoding ``name`` built from the shipped ranks (once a process)."""
    import tiktoken

    spec = ENCODINGS[name]
    return tiktoken.Encoding(name=name, pat_str=spec.pat_str, mergeable_ranks=ranks(name),
                             special_tokens=dict(spec.special_tokens))
