"""What the routes share: JSON errors, the request body (capped), the server and a job of a
request, and the routes of a job (its figures, its event stream, its cancel), which runs and
studies alike have."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse

from ..errors import CombatsimError
from ..safeyaml import max_file_bytes
from .jobs import Job

BODY_SLACK = 64 * 1024  # bytes a request may carry beyond the file size cap (its JSON)
EVENT_WAIT = 1.0  # seconds an event stream waits for news before it sends a keep-alive


def errors(status: int, *lines: str) -> JSONResponse:
    return JSONResponse({"errors": list(lines)}, status_code=status)


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, at most the file size cap (plus its wrapping) long."""
    limit = max_file_bytes() + BODY_SLACK
    data = b""
    async for part in request.stream():
        data += part
        if len(data) > limit:
            raise CombatsimError(f"a request body over {limit:,} bytes")
    try:
        body = json.loads(data or b"{}")
    except ValueError as err:
        raise CombatsimError(f"a JSON body ({err})") from None
    if not isinstance(body, dict):
        raise CombatsimError("a JSON object as the request body")
    return body


def server_of(request: Request) -> Any:
    return request.app.state.server


def job_of(request: Request, kind: str) -> Job:
    job = server_of(request).jobs.get(request.path_params["id"], kind)
    if job is None:
        raise LookupError("no such run (it may have expired)")
    return job


# --- a job's routes --------------------------------------------------------------------------


async def get_job(request: Request, kind: str = "run"):
    return JSONResponse(job_of(request, kind).snapshot())


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
            yield f"data: {json.dumps(snapshot)}\n\n"
            if snapshot["state"] != "running":
                return
            await asyncio.sleep(0)

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


async def cancel_job(request: Request, kind: str = "run"):
    job = job_of(request, kind)
    job.cancel.cancel()
    await run_in_threadpool(job.thread.join, 2.0)
    return JSONResponse(job.snapshot())
