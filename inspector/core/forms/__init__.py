"""Forms from JSON Schemas, without Qt: a schema becomes a field tree (:mod:`.fields`), field values become an
arguments object and back (:mod:`.values`), and violations of the schema land on the field they are about.

The window's form widget (``inspector/ui/forms/form_widget.py``) only renders this; the CLI and the tests use
it directly.
"""

from inspector.core.forms.fields import Field, Option, build
from inspector.core.forms.values import (
    NULL,
    UNSET,
    Branch,
    Obj,
    arguments,
    assign,
    from_arguments,
    initial,
    problems,
    to_json,
)

__all__ = ["Field", "Option", "build", "NULL", "UNSET", "Branch", "Obj", "arguments", "assign",
           "from_arguments", "initial", "problems", "to_json"]
