"""``--rules FILE``: intercept rules for a headless command (record; the taps and serve share it), read and
checked before anything starts (:mod:`inspector.core.intercept.rules`).

Light at import (the parsers import it to print the help): the rules module is imported only when a file is
given.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inspector.core.intercept.rules import Rules

RULES_HELP = ("intercept rules (JSON: {\"rules\": [{\"when\": {...}, \"do\": ...}]}): rewrite, delay, drop or answer "
              "with an error the messages they match, both ways; the first matching rule acts, and the capture "
              "keeps the original and the changed message, marked. A pause rule is refused: it needs the window "
              "(user guide, Intercept rules)")


def add_rules_option(parser: argparse.ArgumentParser, help: str = RULES_HELP) -> None:
    parser.add_argument("--rules", metavar="FILE", help=help)


def rules_of(args: argparse.Namespace, where: str) -> Rules | None:
    """The rules of ``--rules`` (None without it), checked for a headless ``where`` (``record``): a pause rule is
    refused. Raises :class:`~inspector.core.connect.target.InputError` with one sentence when the file cannot be
    used."""
    path = getattr(args, "rules", None)
    if path is None:
        return None
    from inspector.core.connect.target import InputError
    from inspector.core.intercept.rules import RulesError, load_rules

    try:
        rules = load_rules(path)
        rules.refuse_pause(where)
    except RulesError as exc:
        raise InputError(str(exc)) from None
    return rules
