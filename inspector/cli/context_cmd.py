"""``mcp-inspector context``: what the model sees of a server, costed in tokens and bytes and linted for tool
poisoning (docs/context-rules.md), from a live server (``-- CMD``, ``--url``, ``--server``) or a capture."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from inspector.core.exits import (
    EXIT_BAD_INPUT,
    EXIT_DIFFERENT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_OVER_BUDGET,
    exits_help,
)
from inspector.core.text import safe, safe_json

CONTEXT_EPILOG = """\
examples:
  mcp-inspector context -- npx -y @modelcontextprotocol/server-everything
  mcp-inspector context --url http://127.0.0.1:8000/mcp --budget 8000
  mcp-inspector context --capture session.jsonl --format json
  mcp-inspector context --config .cursor/mcp.json --server github --format sarif --report context.sarif

"""
#: ``--report`` endings and the format they mean when ``--format`` is not given
FORMAT_BY_SUFFIX = {".json": "json", ".sarif": "sarif"}


def token_count(text: str) -> int:
    """``--budget``: a whole number of tokens, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of tokens: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"a budget is 1 token or more, not {value}")
    return value


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from inspector.cli.main import EpilogFormatter
    from inspector.cli.server_options import add_server_options
    from inspector.core.context.tokenizers import DEFAULT_TOKENIZER, TOKENIZERS
    from inspector.core.exits import CONTEXT_EXITS, CONTEXT_EXITS_ORDER

    context = sub.add_parser(
        "context", help="what the model sees: the tokens each tool costs, and tool-poisoning findings",
        description="List a server's tools, prompts and resource templates (or read them from a capture) and "
                    "report what they cost a model's context, in tokens and bytes, per tool and part (name, "
                    "description, schemas, annotations), the largest first, with the server's instructions and "
                    "the total; and lint their text for tool poisoning: hidden characters, instructions to read "
                    "secrets, concealment, shadowing of other tools, injected instructions and exfiltration "
                    "(docs/context-rules.md). The tokeniser works offline: its encoding files ship with "
                    "mcp-inspector.",
        epilog=CONTEXT_EPILOG + exits_help(CONTEXT_EXITS, CONTEXT_EXITS_ORDER), formatter_class=EpilogFormatter,
        conflict_handler="resolve")  # --server is redefined below: repeatable here
    context.add_argument("--capture", type=Path, metavar="CAPTURE",
                         help="take the listing from this capture (its last complete tools/list, prompts/list, "
                              "resources/templates/list and the handshake's instructions) instead of a server")
    context.add_argument("--format", choices=("text", "json", "sarif"),
                         help="report format (default: from --report's ending, .json .sarif, else text); sarif "
                              "is SARIF 2.1.0, a result per finding")
    context.add_argument("--report", type=Path, metavar="FILE",
                         help="write the report here (default: standard output)")
    context.add_argument("--budget", type=token_count, metavar="TOKENS",
                         help="fail (exit 10) when the whole listing costs more tokens than this")
    context.add_argument("--tokenizer", choices=TOKENIZERS, default=DEFAULT_TOKENIZER, metavar="NAME",
                         help=f"{', '.join(TOKENIZERS)}: a BPE encoding (default {DEFAULT_TOKENIZER}), or bytes "
                              "for an estimate (a token per 4 UTF-8 bytes)")
    context.add_argument("--out", type=Path, metavar="CAPTURE", help="save the live session as a capture")
    add_server_options(context)
    context.add_argument("--server", action="append", default=[], metavar="NAME",
                        help="the server of --config to use (may be left out when the file has only one); repeat "
                             "it to cost several servers together and report the tool names they share")


def run_context(args: argparse.Namespace, command: list[str]) -> int:
    from inspector.cli.compare_cmd import open_status
    from inspector.cli.main import run_async
    from inspector.cli.server_options import fail, names_server, server_problem
    from inspector.core.compare.sessions import CompareError
    from inspector.core.connect.opened import CannotOpen
    from inspector.core.connect.target import InputError, Target
    from inspector.core.context.cost import ContextError
    from inspector.core.context.report import examine, examine_servers
    from inspector.core.context.sources import from_capture, from_server, listing_of
    from inspector.core.context.tokenizers import TokenizerError, tokenizer

    fmt = args.format or (FORMAT_BY_SUFFIX.get(args.report.suffix.lower(), "text") if args.report else "text")
    names: list[str] = args.server
    try:
        tok = tokenizer(args.tokenizer)
        if args.capture is not None:
            if names_server(args, command):
                return fail("--capture names where the listing comes from; leave out -- CMD, --url and --server")
            records = [from_capture(args.capture)]
        else:
            problem = server_problem(args, command, "context", "context")
            if problem:
                return fail(problem + " (or --capture FILE)")
            records = [run_async(from_server(Target.from_args(one, command), out))
                       for one, out in _each_server(args, names)]
    except (TokenizerError, CompareError, InputError) as exc:
        return fail(str(exc))
    except CannotOpen as exc:
        return fail(str(exc), open_status(exc.exit_code))
    except KeyboardInterrupt:
        return fail("interrupted; the server was shut down", EXIT_INTERRUPTED)
    for record in records:
        if record.interface.get("tools") is None:
            why = "; ".join(record.notes) or "it holds no complete tools/list"
            return fail(f"no tools/list from {record.source}: {why}")
    notes = [note for record in records for note in record.notes]
    try:
        if len(records) == 1:
            report = examine(listing_of(records[0]), tok, records[0].describe(), budget=args.budget, notes=notes)
        else:
            report = examine_servers([(name, listing_of(r)) for name, r in zip(names, records, strict=True)], tok,
                                     budget=args.budget, notes=notes)
    except ContextError as exc:
        return fail(f"{records[0].source if len(records) == 1 else ' + '.join(names)}: {exc}")
    artifact = args.config or args.capture or (args.out if len(records) == 1 else None)
    report.artifact = None if artifact is None else str(artifact)
    code = EXIT_DIFFERENT if report.failing_findings else EXIT_OVER_BUDGET if report.over_budget else EXIT_OK
    if not _write(report, fmt, code, args.report):
        return EXIT_BAD_INPUT
    if report.over_budget:
        print(f"mcp-inspector: {safe(report.budget_sentence())}", file=sys.stderr)
    return code


def _each_server(args: argparse.Namespace, names: list[str]) -> list[tuple[argparse.Namespace, Path | None]]:
    """The command line once per ``--server`` NAME (once when fewer than two), with its ``--out`` capture:
    ``--out x.jsonl`` is ``x-NAME.jsonl`` for each of several servers."""
    if len(names) < 2:
        return [(argparse.Namespace(**{**vars(args), "server": names[0] if names else None}), args.out)]
    out: Path | None = args.out
    return [(argparse.Namespace(**{**vars(args), "server": name}),
             None if out is None else out.with_name(f"{out.stem}-{name}{out.suffix}")) for name in names]


def _write(report: Any, fmt: str, code: int, path: Path | None) -> bool:
    from inspector.core.context.report import render_json, render_sarif, render_text

    text = render_sarif(report, code) if fmt == "sarif" else render_json(report) if fmt == "json" \
        else render_text(report)
    if path is None:
        try:
            sys.stdout.write(safe(text) if fmt == "text" else safe_json(text))
            sys.stdout.flush()
        except BrokenPipeError:
            sys.stderr.close()
        return True
    try:
        path.write_text(text if fmt == "text" else safe_json(text), encoding="utf-8")
    except OSError as exc:
        print(f"mcp-inspector: cannot write the report {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    print(safe(f"{path}: {report.summary()}"))
    return True
