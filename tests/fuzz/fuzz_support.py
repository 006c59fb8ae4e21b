"""Running a Hypothesis property as one row of the reliability report, with the number of examples it ran.

Each fuzz test builds its ``@given`` property as an inner function (so the report fixture is not a
function-scoped fixture shared by examples), bumps an :class:`Examples` counter in the property's body, and
hands both to :func:`run_property`, which records the figures even when the property fails.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from itertools import pairwise

from hypothesis import settings
from hypothesis import strategies as st
from report_rows import ReportRow


class Examples:
    """Counts the calls of a property's body: the examples actually run (shrinking included, if any)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> None:
        self.count += 1


def profile() -> str:
    return os.environ.get("HYPOTHESIS_PROFILE", "ci")


def run_property(report: ReportRow, examples: Examples, prop: Callable[[], None]) -> None:
    started = time.monotonic()
    try:
        prop()
    finally:
        report.figure("examples", examples.count)
        report.figure("profile", f"{profile()} (up to {settings.default.max_examples:,})")
        report.figure("seconds", round(time.monotonic() - started, 1))


#: Where a chunk boundary is most likely to expose a bug: next to a line end or inside a multi-byte sequence.
HOT_BYTES = frozenset(b"\r\n\xef\xbb\xbf\xc3\xe2:{}[]")


@st.composite
def chunked(draw: st.DrawFn, data_strategy: st.SearchStrategy[bytes]) -> tuple[bytes, list[bytes]]:
    """Some bytes and an arbitrary split of them into chunks (empty chunks included): cuts anywhere, cuts
    next to line ends and multi-byte sequences (where incremental decoders go wrong), or one byte at a time."""
    data = draw(data_strategy)
    if data and draw(st.integers(0, 9)) == 0:
        return data, [data[i:i + 1] for i in range(len(data))]
    hot = [i for i, byte in enumerate(data) if byte in HOT_BYTES]
    anywhere = st.integers(0, len(data))
    position = st.one_of(anywhere, st.sampled_from(hot).flatmap(lambda i: st.sampled_from([i, i + 1]))) \
        if hot else anywhere
    cuts = sorted(draw(st.lists(position, max_size=12)))
    bounds = [0, *cuts, len(data)]
    return data, [data[a:b] for a, b in pairwise(bounds)]


def pieces_and_bytes(pieces: list[bytes], max_pieces: int = 40) -> st.SearchStrategy[bytes]:
    """Byte strings made of interesting pieces and arbitrary bytes, or just arbitrary bytes."""
    mixed = st.lists(st.one_of(st.sampled_from(pieces), st.binary(max_size=16)), max_size=max_pieces).map(b"".join)
    return st.one_of(mixed, st.binary(max_size=600))
