"""What a bare ``python -m pytest`` runs: the quick suite, and ``--whole`` for everything (issue 25).

The README's test command is a newcomer's first check and the loop while working, and it has to end in under
two minutes on a 2-core machine. The whole suite takes about four there, most of the difference in the tests
that drive servers end to end, start npm packages or install the project. So a run that names nothing leaves
out the tests marked

- ``integration``: MCP servers driven end to end in subprocesses, through the CLI or the window: the real
  third-party ones (the MCP SDK's, mcp-server-time) and the fault matrix's misbehaving ones;
- ``npm``: npm packages (server-everything, the MCP Apps examples, the conformance suite), installed on first use;
- ``packaging``: ``pip install .`` into a virtual environment of its own;
- ``slow``: whole processes measured or rendered case by case (memory bounds under a flood, the window on
  small screens), seconds of CPU each.

A run that names what it wants runs it, marked or not: paths or node ids (or a run started in a subfolder),
``-m``, ``-k``, ``--lf``, ``--sw``, or ``--whole`` for the whole suite. CI runs the quick suite and then the
rest (.ci/run), so every test runs there.
"""

from __future__ import annotations

import pytest

#: The marks of the tests a bare run leaves out (pyproject.toml says what each means).
LEFT_OUT_OF_THE_QUICK_RUN = ("integration", "npm", "packaging", "slow")


def add_option(parser: pytest.Parser) -> None:
    parser.addoption("--whole", action="store_true", default=False,
                     help="run the whole suite, also the tests marked "
                          f"{', '.join(LEFT_OUT_OF_THE_QUICK_RUN)} that a run naming no test leaves out (CI runs "
                          "them too)")


def is_quick(config: pytest.Config) -> bool:
    """Whether this is a bare run: the tests come from ``testpaths`` (no paths or node ids given, and pytest
    started at the project's root: from a subfolder, pytest runs that folder's tests), with no ``--whole``,
    ``-m``, ``-k``, ``--lf`` or ``--sw`` (those name tests too, the last ones failed). A pytest-xdist worker
    gets the controller's arguments and folder, so all of them decide alike."""
    option = config.option
    from_testpaths = getattr(config, "args_source", pytest.Config.ArgsSource.TESTPATHS) \
        == pytest.Config.ArgsSource.TESTPATHS
    return from_testpaths and not (getattr(option, "whole", False) or getattr(option, "file_or_dir", None)
                                   or getattr(option, "markexpr", "") or getattr(option, "keyword", "")
                                   or getattr(option, "lf", False) or getattr(option, "stepwise", False))


def deselect_the_slow_part(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a bare run, deselect the tests carrying any of :data:`LEFT_OUT_OF_THE_QUICK_RUN` (a run without
    pytest-xdist counts them as deselected in its summary; the header says so in every run)."""
    if not is_quick(config):
        return
    kept: list[pytest.Item] = []
    left_out: list[pytest.Item] = []
    for item in items:
        marked = any(item.get_closest_marker(name) is not None for name in LEFT_OUT_OF_THE_QUICK_RUN)
        (left_out if marked else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


def header(config: pytest.Config) -> str | None:
    """The line the run starts with, saying which suite this is."""
    if not is_quick(config):
        return None
    return (f"the quick suite: tests marked {', '.join(LEFT_OUT_OF_THE_QUICK_RUN)} are left out; "
            "`python -m pytest --whole` runs them too, as CI does")
