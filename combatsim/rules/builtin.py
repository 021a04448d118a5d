"""Importing this module registers the built-in rule systems (as a plug-in would register)."""

from .shadowrun import system as _shadowrun  # noqa: F401
