"""What the command line needs to know of the bench to build its parser, without importing it (no asyncio, no
network stack: ``--help`` stays light). :mod:`.scenarios` defines the scenarios of these names, in this order."""

from __future__ import annotations

#: The scenarios run without ``--scenario``, in that order.
DEFAULT_SCENARIOS = ("handshake", "ping", "list-changed", "junk-stdout", "slow", "crash", "sampling", "elicitation",
                     "roots", "pagination", "legacy-fallback", "modern", "unknown-notification", "duplicate-response",
                     "big-result")
#: Every scenario: the default ones, then those run only when named (they last as long as the client waits).
SCENARIO_NAMES = (*DEFAULT_SCENARIOS, "no-answer")
#: The variable that names the scenario in the client's environment.
ENV_SCENARIO = "MCP_INSPECTOR_SCENARIO"
#: How long each scenario may run, by default, before the client is stopped (``--timeout``).
DEFAULT_TIMEOUT = 30.0
