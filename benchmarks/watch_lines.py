"""What ``tap --watch`` framing costs on a long line that comes in many chunks (issue 45's relay, the
:class:`inspector.core.tap.reloading.Lines` splitter): a line of SIZE MB fed in 256 KB chunks, then its newline.

Baseline: ``b"".join`` of the same chunks, the least copying any framer can do (the line is one bytes object
at the end). The framer keeps a cut line's pieces apart and joins them once at the newline; before that it
copied the whole line so far at every chunk (0.29 s for 8 MB, 5.0 s for 32 MB here).

Run: python benchmarks/watch_lines.py [--mb 8,32] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from inspector.core.tap.reloading import Lines

CHUNK = 256 * 1024


def framed(chunks: list[bytes]) -> float:
    lines = Lines(64 * 1024 * 1024)
    began = time.perf_counter()
    for chunk in chunks:
        lines.feed(chunk)
    _head, [line], _tail = lines.feed(b"\n")
    assert len(line) == len(chunks) * CHUNK + 1
    return time.perf_counter() - began


def joined(chunks: list[bytes]) -> float:
    began = time.perf_counter()
    line = b"".join([*chunks, b"\n"])
    assert len(line) == len(chunks) * CHUNK + 1
    return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", default="8,32")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print("| line | join ms (baseline) | Lines ms | x baseline |")
    print("|---|---|---|---|")
    for mb in (int(text) for text in args.mb.split(",")):
        chunks = [bytes([65 + n % 26]) * CHUNK for n in range(mb * 4)]
        base, mine = [], []
        for _ in range(args.repeat):  # alternated, so the machine's load hits both alike
            base.append(joined(chunks))
            mine.append(framed(chunks))
        b, m = statistics.median(base) * 1000, statistics.median(mine) * 1000
        print(f"| {mb} MB in 256 KB chunks | {b:.1f} | {m:.1f} | {m / b:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
