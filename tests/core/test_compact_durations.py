"""Durations for narrow columns: about three significant figures, a unit that suits, never over 8 characters."""

from __future__ import annotations

import pytest

from inspector.core.present.describe import compact_seconds


@pytest.mark.parametrize(("seconds", "shown"), [
    (0.0, "0.00 ms"), (0.00025, "0.25 ms"), (0.0125, "12.5 ms"), (0.25, "250 ms"), (0.9996, "1.00 s"),
    (2.5, "2.50 s"), (25.5809, "25.6 s"), (59.96, "1.0 min"), (258, "4.3 min"), (7560, "2.1 h"),
    (3 * 86400, "3.0 d"), (-0.5, "-500 ms"),
])
def test_a_duration_is_shown_in_the_unit_that_suits_it(seconds, shown):
    assert compact_seconds(seconds) == shown


@pytest.mark.parametrize(("seconds", "shown"), [(0.4, "0 s"), (14.3, "14 s"), (59.4, "59 s"), (59.7, "1.0 min"),
                                                (75, "1.2 min")])
def test_a_running_wait_is_shown_in_whole_seconds_under_a_minute(seconds, shown):
    assert compact_seconds(seconds, whole=True) == shown


def test_no_duration_is_longer_than_eight_characters():
    steps = [10 ** (exponent / 50) for exponent in range(-300, 400)]  # 1 µs to 100 million s
    assert max(len(compact_seconds(s)) for s in steps) <= 8
    assert max(len(compact_seconds(s, whole=True)) for s in steps) <= 8
