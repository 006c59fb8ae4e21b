"""The argument types the command line's options share (``type=`` of ``add_argument``): each turns the
text typed into a value or raises :class:`argparse.ArgumentTypeError` with the reason, which argparse
prints after the option's name."""

from __future__ import annotations

import argparse


def non_negative(text: str, unit: str = "seconds") -> float:
    """A number of ``unit``, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of {unit}") from None
    if value < 0 or value != value:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def milliseconds(text: str) -> float:
    """A number of milliseconds, 0 or more (``--latency-threshold``)."""
    return non_negative(text, "milliseconds")


def positive(text: str) -> float:
    """A number of seconds (or a rate) above 0."""
    value = non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def timeout_or_none(text: str) -> float:
    """Seconds above 0, or ``none`` (also 0) for no timeout at all (``inf``)."""
    if text.strip().lower() in ("none", "0"):
        return float("inf")
    return positive(text)


def size(text: str) -> int:
    """A size in bytes, as :func:`inspector.core.sizes.parse_size` reads it (``64MiB``, ``1e6``...)."""
    from inspector.core.sizes import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def size_pair(text: str) -> tuple[int, int]:
    """``WxH`` in pixels, each from 100 to 10000."""
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit() or not (100 <= int(width) <= 10000
                                                                     and 100 <= int(height) <= 10000):
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 800x600 (each from 100 to 10000 pixels)")
    return int(width), int(height)
