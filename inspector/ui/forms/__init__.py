"""Widgets that render the forms of inspector.core.forms."""
