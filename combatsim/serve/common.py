"""What the routes share: JSON answers and errors, the request body (capped, and refused when
hostile: nested too deep, a NaN, a lone surrogate), the server and a job of a request, and the
routes of a job (its figures, its event stream, its cancel), which runs and studies alike have.

Every JSON answer goes through ``encoded``: a non-finite number (a NaN a YAML file holds, which
a view echoes) becomes ``null`` and a lone surrogate (a file name the disk could not decode) a
replacement character, so an answer is always valid JSON and never a 500."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse

from ..errors import CombatsimError
from ..safeyaml import max_file_bytes
from .jobs import Job

BODY_SLACK = 64 * 1024  # bytes a request may carry beyond the file size cap (its JSON)
EVENT_WAIT = 1.0  # seconds an event stream waits for news before it sends a keep-alive
MAX_DEPTH = 32  # nesting of a request's JSON: the deepest real body (a sweep) has 4


def encoded(content: Any) -> str:
    """``content`` as JSON text: valid even where it holds a NaN or an infinity (as null)."""
    try:
        return json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError:
        return json.dumps(_finite(content), ensure_ascii=False, separators=(",", ":"))


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


class JSON(JSONResponse):
    """A JSON answer that is always valid JSON (``encoded``)."""

    def render(self, content: Any) -> bytes:
        return encoded(content).encode("utf-8", "replace")


def errors(status: int, *lines: str) -> JSON:
    return JSON({"errors": list(lines)}, status_code=status)


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, at most the file size cap (plus its wrapping) long, nested
    at most ``MAX_DEPTH`` deep, with finite numbers and text that is valid Unicode."""
    limit = max_file_bytes() + BODY_SLACK
    data = b""
    async for part in request.stream():
        data += part
        if len(data) > limit:
            raise CombatsimError(f"a request body over {limit:,} bytes")
    try:
        body = json.loads(data or b"{}", parse_constant=_no_constant)
    except RecursionError:
        raise CombatsimError(f"a JSON body nested at most {MAX_DEPTH} deep") from None
    except ValueError as err:
        raise CombatsimError(f"a JSON body ({err})") from None
    if not isinstance(body, dict):
        raise CombatsimError("a JSON object as the request body")
    _check_plain(body)
    return body


def _no_constant(name: str) -> Any:
    raise CombatsimError(f"a JSON body with finite numbers (not {name})")


def _check_plain(body: dict[str, Any]) -> None:
    """Refuse nesting deeper than ``MAX_DEPTH`` and a string no UTF-8 can carry (a lone
    surrogate, as ``"\\ud800"`` decodes to), walking without recursion."""
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise CombatsimError("a JSON body of valid Unicode (a lone surrogate)") from None
        elif isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise CombatsimError(f"a JSON body nested at most {MAX_DEPTH} deep")
            items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)


def server_of(request: Request) -> Any:
    return request.app.state.server


def job_of(request: Request, kind: str) -> Job:
    job = server_of(request).jobs.get(request.path_params["id"], kind)
    if job is None:
        raise LookupError("no such run (it may have expired)")
    return job


# --- a job's routes --------------------------------------------------------------------------


async def get_job(request: Request, kind: str = "run"):
    return JSON(job_of(request, kind).snapshot())


async def job_events(request: Request, kind: str = "run"):
    job = job_of(request, kind)

    async def stream():
        version = -1
        while True:
            news = await run_in_threadpool(job.wait_change, version, EVENT_WAIT)
            if news == version and job.running:
                yield ": keep-alive\n\n"
                continue
            version = news
            snapshot = job.snapshot()
            yield f"data: {encoded(snapshot)}\n\n"
            if snapshot["state"] != "running":
                return
            await asyncio.sleep(0)

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


async def cancel_job(request: Request, kind: str = "run"):
    job = job_of(request, kind)
    job.cancel.cancel()
    await run_in_threadpool(job.thread.join, 2.0)
    return JSON(job.snapshot())
