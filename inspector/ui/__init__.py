"""The desktop inspector: the only package that imports PySide6. It sits on inspector.core, like the CLI."""
