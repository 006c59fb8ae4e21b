"""The size caps of issue 27, held: no module of inspector/ longer than 800 lines, no class with more than 40
methods. A module or class over its cap does too much; split it where its responsibilities part, not where the
line count happens to fall (issue 39).

Sizes are read from the source with ``ast``, so nothing is imported. Lines are the file's lines, blank lines,
comments and docstrings included; a class's methods are the functions defined directly in its body (properties,
static and class methods, ``async def`` too; nested classes are counted on their own, and functions nested in a
method are not methods).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "inspector"

MAX_MODULE_LINES = 800
MAX_CLASS_METHODS = 40

#: Modules allowed over MAX_MODULE_LINES for now, path under inspector/ -> why (one line). Empty: every module
#: is under the cap. An entry is for a module whose split along its responsibilities is planned, not a way round.
ALLOWED_LONG_MODULES: dict[str, str] = {}

#: Classes allowed over MAX_CLASS_METHODS for now, ``path::Class`` -> why (one line). Empty, as above.
ALLOWED_BIG_CLASSES: dict[str, str] = {}


def module_lengths(package: Path) -> dict[str, int]:
    """Each module under ``package`` (its path relative to it, with ``/``) and its number of lines."""
    return {path.relative_to(package).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
            for path in sorted(package.rglob("*.py")) if "__pycache__" not in path.parts}


def method_counts(source: str) -> dict[str, int]:
    """Each class defined in ``source`` (dotted through the classes it is nested in) and its number of methods."""
    counts: dict[str, int] = {}

    def visit(node: ast.AST, outer: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                name = f"{outer}.{child.name}" if outer else child.name
                counts[name] = sum(isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                                   for statement in child.body)
                visit(child, name)
            else:
                visit(child, outer)  # classes inside functions and blocks too

    visit(ast.parse(source), "")
    return counts


def class_sizes(package: Path) -> dict[str, int]:
    """Each class under ``package`` as ``path::Class`` and its number of methods."""
    sizes: dict[str, int] = {}
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        where = path.relative_to(package).as_posix()
        for name, count in method_counts(path.read_text(encoding="utf-8")).items():
            sizes[f"{where}::{name}"] = count
    return sizes


def test_no_module_of_inspector_is_longer_than_800_lines() -> None:
    over = {where: lines for where, lines in module_lengths(PACKAGE).items() if lines > MAX_MODULE_LINES}
    offenders = [f"inspector/{where}: {lines} lines" for where, lines in sorted(over.items())
                 if where not in ALLOWED_LONG_MODULES]
    assert not offenders, (f"over {MAX_MODULE_LINES} lines (split along responsibilities, not line counts):\n"
                           + "\n".join(offenders))
    back_under = sorted(set(ALLOWED_LONG_MODULES) - set(over))
    assert not back_under, f"under the cap now, take them off ALLOWED_LONG_MODULES: {back_under}"


def test_no_class_of_inspector_has_more_than_40_methods() -> None:
    over = {where: count for where, count in class_sizes(PACKAGE).items() if count > MAX_CLASS_METHODS}
    offenders = [f"inspector/{where}: {count} methods" for where, count in sorted(over.items())
                 if where not in ALLOWED_BIG_CLASSES]
    assert not offenders, (f"over {MAX_CLASS_METHODS} methods (split along responsibilities):\n"
                           + "\n".join(offenders))
    back_under = sorted(set(ALLOWED_BIG_CLASSES) - set(over))
    assert not back_under, f"under the cap now, take them off ALLOWED_BIG_CLASSES: {back_under}"


def test_methods_are_the_functions_defined_in_a_class_body_each_nested_class_counted_on_its_own() -> None:
    source = '''
class Outer:
    x = 1

    def plain(self):
        def helper():  # a function inside a method: not a method
            pass

    async def waits(self):
        pass

    @property
    def value(self):
        return 1

    class Inner:
        def one(self):
            pass


def factory():
    class Local:
        def only(self):
            pass
    return Local
'''
    assert method_counts(source) == {"Outer": 3, "Outer.Inner": 1, "Local": 1}
