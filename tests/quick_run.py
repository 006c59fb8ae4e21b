"""The quick suite, what ``python -m pytest`` runs (issue 25), and the line a run starts with to say so.

The README's test command is a newcomer's first check and the loop while working, and it has to end in under
two minutes on a 2-core machine. The whole suite takes about four there, most of the difference in the tests
that drive servers end to end, start npm packages or install the project. So pyproject.toml's ``addopts`` ends
in the mark expression ``-m "not (integration or npm or packaging or slow)"``, which leaves out the tests marked

- ``integration``: MCP servers driven end to end in subprocesses, through the CLI or the window: the real
  third-party ones (the MCP SDK's, mcp-server-time) and the fault matrix's misbehaving ones;
- ``npm``: npm packages (server-everything, the MCP Apps examples, the conformance suite), installed on first use;
- ``packaging``: ``pip install .`` into a virtual environment of its own;
- ``slow``: whole processes measured or rendered case by case (memory bounds under a flood, the window on
  small screens), seconds of CPU each.

That is pytest's own way (issue 39; it replaced a rule of this module that ran the whole suite whenever tests
were named, so ``pytest`` and ``pytest tests`` ran different suites). Every run applies it, whatever it names; a
``-m`` on the command line comes after ``addopts`` and replaces it: ``-m integration`` runs those tests, and
``-m ""`` the whole suite (``python -m pytest -m "" tests/integration`` for a folder of marked tests). CI runs
the quick suite and then ``-m "integration or npm or packaging or slow"`` (.ci/run), so every test runs there,
once.
"""

from __future__ import annotations

import pytest


def configured_mark_expression(config: pytest.Config) -> str | None:
    """The mark expression ``addopts`` gives (its last ``-m``), or None when it gives none."""
    addopts = list(config.getini("addopts"))
    expression = None
    for index, arg in enumerate(addopts[:-1]):
        if arg in ("-m", "--markexpr"):  # not "-mEXPR": pyproject.toml spells it with a space
            expression = addopts[index + 1]
    return expression


def header(config: pytest.Config) -> str | None:
    """The line a run of the quick suite starts with: which tests it leaves out and how to run them; None when
    the command line chose its own ``-m``."""
    expression = configured_mark_expression(config)
    if not expression or config.option.markexpr != expression:
        return None
    return f'the quick suite: -m "{expression}" (pyproject.toml\'s addopts); -m "" runs every test'
