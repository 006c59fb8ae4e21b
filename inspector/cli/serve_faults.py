"""``serve``'s ``--fault``, ``--seed`` and ``--rules``: read and checked before serving, and what they make of the
twin (a :class:`~inspector.core.serve.conduct.Conductor`, served by :mod:`inspector.core.serve.paced`).

Light at import (the parsers import it to print the help): the core modules are imported when serve runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from inspector.cli.rules_option import add_rules_option

if TYPE_CHECKING:
    from pathlib import Path

    from inspector.core.intercept.rules import Rules
    from inspector.core.serve.conduct import Conductor
    from inspector.core.serve.fault_link import FaultLink
    from inspector.core.serve.faults import Faults
    from inspector.core.serve.twin import Twin

FAULT_HELP = ("make the twin misbehave (repeatable): latency=MS or latency=MIN-MAX (each answer waits, the others "
              "go on), error-rate=P (a share 0-1 of requests answered with an internal error -32603), junk (a line "
              "that is no JSON before each answer), drop=METHOD (its requests never answered), close-after=N (end "
              "after N requests, status 0), oversize=BYTES (the next answer padded past BYTES), list-changed=SECONDS "
              "(notifications/tools/list_changed that often)")
SEED_HELP = ("seed of the random choices of --fault (latency ranges, error-rate), to make a run again; without it "
             "a random seed, shown on stderr")
SERVE_RULES_HELP = ("intercept rules (JSON, as record's --rules) on what the twin receives, before it is matched, "
                    "and what it sends, before it is written: rewrite, delay, drop or answer with an error; --out "
                    "records the marks. A pause rule is refused: it needs the window")


def add_fault_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fault", action="append", default=[], metavar="SPEC", help=FAULT_HELP)
    parser.add_argument("--seed", type=int, metavar="N", help=SEED_HELP)
    add_rules_option(parser, help=SERVE_RULES_HELP)


def faults_and_rules(args: argparse.Namespace) -> tuple[Faults, Rules | None] | None:
    """The faults and rules the options name, or None when one is unusable (its sentence is printed)."""
    from inspector.cli.rules_option import rules_of
    from inspector.core.connect.target import InputError
    from inspector.core.serve.faults import FaultError, Faults
    from inspector.core.text import safe

    try:
        faults = Faults(args.fault, seed=args.seed)
        rules = rules_of(args, "serve")
    except (FaultError, InputError) as exc:
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return None
    if faults:
        print(f"mcp-inspector: faults: {'; '.join(faults.describe())} (--seed {faults.seed})", file=sys.stderr)
    return faults, rules


def conductor_of(twin: Twin, faults: Faults, rules: Rules | None, toggled: bool = False) -> Conductor | None:
    """The conductor of a twin with faults, rules or server requests to send, or whose faults a window toggles
    (``toggled``); None: the twin alone does."""
    from inspector.core.serve.conduct import Conductor

    if not toggled and not faults and not (rules and rules.rules) and not twin.index.server_request_rows:
        return None
    return Conductor(twin, faults, rules)


def window_toggles(record: Any, faults: Faults, capture: Path, socket: Path) -> FaultLink | None:
    """The window's fault toggles for ``capture`` served ``--live`` (stdio or HTTP), when a window took its feed (the
    link on ``socket``: :mod:`inspector.core.serve.fault_link`); None without one. The changes are noted in the
    served session's record."""
    import os

    from inspector.core.serve.fault_link import FaultLink, FaultToggles
    from inspector.core.serve.live import LiveCapture
    from inspector.core.text import safe

    if not isinstance(record, LiveCapture) or not record.live.feed.connected:
        return None
    toggles = FaultToggles(faults)

    def noted(text: str) -> None:
        record.note(text)
        record.flush()

    toggles.noted = noted
    hello = {"name": capture.name, "pid": os.getpid()}  # as the feed's (inspector.core.serve.live.hello)
    return FaultLink.open(socket, hello, toggles,
                          warn=lambda text: print(f"mcp-inspector serve: {safe(text)}", file=sys.stderr))


def summary_of(conductor: Any) -> list[str]:
    """What the conductor (or an HTTP twin's sessions' totals) has to say at the end (close-after's sentence
    first)."""
    from inspector.core.serve.conduct import Conductor
    from inspector.core.serve.http import ServedTotals

    if isinstance(conductor, ServedTotals):
        return ([conductor.closing] if conductor.closing else []) + conductor.conducted()
    if not isinstance(conductor, Conductor):
        return []
    return ([conductor.closing] if conductor.closing else []) + conductor.summary()
