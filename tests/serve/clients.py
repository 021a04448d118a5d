"""Starlette's test client of the page's app, for the serve tests that talk HTTP to it in this
process (the tests that import this are skipped where Starlette or httpx is missing)."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette 1.x would rather have httpx2; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from combatsim.serve.app import Server, make_app  # noqa: E402


def signed(token: str) -> dict[str, str]:
    """The headers a page sends with each request: its token, and JSON bodies."""
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


@contextlib.contextmanager
def page_client(
    server: Server, token: str | None = None, base: str | None = None, **options: Any
) -> Iterator[TestClient]:
    """``server``'s app behind a test client at ``base`` (default: where the server listens,
    ``http://127.0.0.1:PORT``), sending ``signed(token)`` when given; ``options`` go to
    ``TestClient``."""
    address = base or f"http://127.0.0.1:{server.port}"
    with TestClient(make_app(server), base_url=address, **options) as client:
        if token is not None:
            client.headers.update(signed(token))
        yield client
