"""The page's routes beyond the fixed API: filled in below."""

from __future__ import annotations


def routes() -> list:
    return []
