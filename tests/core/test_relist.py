"""The explorer's relisting rule (inspector/core/explore/relist.py), without Qt, I/O or a clock: a server's
list_changed lists a kind again only if the server declared listChanged, and never more than once a second."""

from __future__ import annotations

from itertools import pairwise

from inspector.core.explore.relist import (
    MIN_RELIST_INTERVAL,
    RelistPolicy,
    declares_list_changed,
    stale_kinds,
)


class Owner:
    """Plays the catalog: keeps the policy's timers on a simulated clock, and lists when they come due."""

    def __init__(self, listing_takes: float = 0.05) -> None:
        self.policy = RelistPolicy()
        self.now = 0.0
        self.listing_takes = listing_takes
        self.timers: dict[str, float] = {}  # kind -> when its scheduled listing is due
        self.ends: dict[str, float] = {}  # kind -> when its listing under way ends
        self.starts: list[tuple[str, float]] = []

    def start(self, kind: str) -> None:
        self.policy.started(kind, self.now)
        self.starts.append((kind, self.now))
        self.ends[kind] = self.now + self.listing_takes

    def schedule(self, kind: str, delay: float | None) -> None:
        if delay is not None:
            assert kind not in self.timers, "a second timer for one kind"
            self.timers[kind] = self.now + delay

    def changed(self, kind: str) -> None:
        self.schedule(kind, self.policy.changed(kind, self.now))

    def run_until(self, until: float) -> None:
        """Let simulated time pass: listings end, timers fire, in time order."""
        while True:
            moments = [(t, "end", k) for k, t in self.ends.items()] + [(t, "due", k) for k, t in self.timers.items()]
            moments = [m for m in moments if m[0] <= until]
            if not moments:
                break
            t, what, kind = min(moments)
            self.now = t
            if what == "end":
                del self.ends[kind]
                self.schedule(kind, self.policy.finished(kind, self.now))
            else:
                del self.timers[kind]
                if self.policy.due(kind, self.now):  # counts the listing as started
                    self.starts.append((kind, self.now))
                    self.ends[kind] = self.now + self.listing_takes
        self.now = until

    def tools_starts(self) -> list[float]:
        return [t for kind, t in self.starts if kind == "tools"]


def test_a_change_after_the_first_listing_lists_again_a_second_after_that_listing_started():
    owner = Owner()
    owner.start("tools")
    owner.run_until(0.2)
    owner.changed("tools")
    owner.run_until(5.0)
    assert owner.tools_starts() == [0.0, MIN_RELIST_INTERVAL]


def test_a_change_long_after_the_last_listing_lists_at_once():
    owner = Owner()
    owner.start("tools")
    owner.run_until(10.0)
    owner.changed("tools")
    owner.run_until(10.0)
    assert owner.tools_starts() == [0.0, 10.0]


def test_a_server_that_answers_every_listing_with_a_change_is_listed_once_a_second():
    # the loop of issue 25: each tools/list answer comes with a list_changed, which made another tools/list
    owner = Owner(listing_takes=0.01)
    owner.start("tools")
    while owner.now < 12.0:
        end = owner.ends.get("tools")
        if end is None:  # between listings: the next one is scheduled, or nothing would ever list again
            assert owner.timers, "the change was dropped"
            owner.run_until(owner.timers["tools"])
            continue
        owner.run_until(end - 0.001)
        owner.changed("tools")  # the notification comes with the answer, while the listing is still open
        owner.run_until(end)
    starts = owner.tools_starts()
    assert 12 <= len(starts) <= 13, starts
    assert all(b - a >= MIN_RELIST_INTERVAL - 1e-9 for a, b in pairwise(starts)), starts


def test_a_flood_of_changes_is_one_listing_a_second_and_the_last_change_is_still_listed():
    owner = Owner()
    owner.start("tools")
    for tick in range(1, 251):  # one notification every 10 ms for 2.5 s
        owner.run_until(tick * 0.01)
        owner.changed("tools")
    owner.run_until(10.0)
    starts = owner.tools_starts()
    assert starts == [0.0, 1.0, 2.0, 3.0], starts  # the last, at 3.0, shows the changes after 2.0


def test_kinds_are_paced_each_on_its_own():
    owner = Owner()
    owner.start("tools")
    owner.start("prompts")
    owner.run_until(0.5)
    owner.changed("tools")
    owner.changed("prompts")
    owner.run_until(5.0)
    assert [t for kind, t in owner.starts if kind == "prompts"] == [0.0, 1.0]
    assert owner.tools_starts() == [0.0, 1.0]


def test_a_listing_that_started_before_a_scheduled_one_came_due_takes_its_place_and_is_followed_by_one_more():
    owner = Owner(listing_takes=0.5)
    owner.start("tools")
    owner.run_until(0.6)
    owner.changed("tools")  # due at 1.0
    owner.run_until(0.9)
    owner.start("tools")  # the user's own listing, say
    owner.run_until(10.0)
    assert owner.tools_starts() == [0.0, 0.9, 1.9]
    assert not owner.policy.busy()


def test_busy_while_a_listing_runs_or_is_scheduled():
    policy = RelistPolicy()
    assert not policy.busy()
    policy.started("tools", 0.0)
    assert policy.busy()
    assert policy.changed("tools", 0.1) is None  # under way: followed by one more once it ends
    assert policy.finished("tools", 0.2) == MIN_RELIST_INTERVAL - 0.2
    assert policy.busy()  # scheduled
    assert policy.due("tools", 1.0) is True
    assert policy.busy()  # the listing it starts
    assert policy.finished("tools", 1.1) is None
    assert not policy.busy()


def test_a_change_between_a_listing_coming_due_and_its_request_waits_for_that_listing():
    # seen in the window: the timer said "list now", the notification came before the listing's task first ran,
    # and a second listing went out 6 ms after the first
    policy = RelistPolicy()
    policy.started("tools", 0.0)
    assert policy.changed("tools", 0.1) is None
    assert policy.finished("tools", 0.2) == MIN_RELIST_INTERVAL - 0.2
    assert policy.due("tools", 1.0) is True
    assert policy.changed("tools", 1.001) is None, "a second listing scheduled before the first went out"
    assert policy.finished("tools", 1.05) == MIN_RELIST_INTERVAL - 0.05  # the change is listed a second later


def test_a_scheduled_listing_that_is_dropped_leaves_the_policy_idle():
    policy = RelistPolicy()
    policy.started("tools", 0.0)
    policy.changed("tools", 0.1)
    policy.finished("tools", 0.2)
    policy.dropped("tools")
    assert not policy.busy()


def test_list_changed_counts_only_when_declared_true():
    assert declares_list_changed({"tools": {"listChanged": True}}, "tools")
    assert not declares_list_changed({"tools": {"listChanged": False}}, "tools")
    assert not declares_list_changed({"tools": {}}, "tools")
    assert not declares_list_changed({"tools": {"listChanged": "yes"}}, "tools")
    assert not declares_list_changed({}, "tools")
    assert not declares_list_changed(None, "tools")
    assert declares_list_changed({"resources": {"listChanged": True}}, "templates"), "templates change with resources"


def test_which_kinds_a_notification_makes_stale():
    assert stale_kinds("notifications/tools/list_changed") == ("tools",)
    assert stale_kinds("notifications/resources/list_changed") == ("resources", "templates")
    assert stale_kinds("notifications/prompts/list_changed") == ("prompts",)
    assert stale_kinds("notifications/message") == ()


def test_the_next_listing_is_paced_from_when_the_first_request_went_out_not_from_when_it_was_decided():
    # under load the first tools/list left 60 ms after its listing started, and the two went out 0.94 s apart
    policy = RelistPolicy()
    policy.started("tools", 0.0)
    policy.sent("tools", 0.06)
    policy.sent("tools", 0.5)  # its next page: the listing's pace is its first request's
    assert policy.changed("tools", 0.55) is None
    assert policy.finished("tools", 0.6) == MIN_RELIST_INTERVAL + 0.06 - 0.6


def test_a_list_request_outside_a_listing_paces_nothing():
    policy = RelistPolicy()
    policy.sent("tools", 5.0)  # the user's own tools/list from the composer
    assert policy.changed("tools", 5.1) == 0.0
