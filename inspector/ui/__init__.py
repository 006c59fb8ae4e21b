"""The desktop inspector: the only package that imports PySide6. It sits on inspector.core, like the CLI."""

from inspector.ui import none_refcount  # noqa: F401 - first: a guard against a PySide6 bug (see the module)
