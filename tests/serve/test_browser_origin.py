"""Other pages against ``combatsim serve`` in a real browser: Debian's chromium driven by
Playwright, with the server's page opened first (so the browser holds its cookie), and pages
served by a tiny ``http.server`` on two other ports of 127.0.0.1 (the same *site*, as a dev
server or a notebook would be). The page of the origin given to ``--allow-origin`` (a
virtual tabletop's module) reads the API with the token; the page of any other origin is
refused, and its hostile tries (a form posting text/plain to ``/api/runs``, a no-cors fetch to
``/api/check``, an ``<img>`` of ``/api/overview``) start nothing.

Skipped with the reason without chromium or the playwright package, as test_browser.py.
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import threading
from pathlib import Path

import pytest

from tests.serve.serving import CHROMIUM, REPO, chromium, start_server, stop_server

pytestmark = pytest.mark.slow

WAIT_MS = 30_000
FIREFIGHT = "sr-firefight-4v4.yaml"

# The module's code, as docs/serve.md shows it: the token in a Bearer header, JSON in.
FETCH_PAGE = """<!doctype html><title>vtt</title><script>
const q = new URLSearchParams(location.search);
const api = q.get("api"), token = q.get("token");
async function call(method, path, body) {
  const answer = await fetch(api + path, {
    method,
    headers: {Authorization: `Bearer ${token}`, "Content-Type": "application/json"},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return [answer.status, await answer.json()];
}
(async () => {
  try {
    const [listed, rows] = await call("GET", "/api/scenarios");
    const [checked, check] = await call("POST", "/api/check", {scenario: "SCENARIO"});
    window.result = {listed, files: rows.map((r) => r.file), checked, errors: check.errors};
  } catch (err) {
    window.result = {refused: String(err)};
  }
})();
</script>""".replace("SCENARIO", FIREFIGHT)

# A page that knows no token: it counts on the cookie the browser holds for the server.
FORM_PAGE = """<!doctype html><title>form</title>
<form method="post" enctype="text/plain" action="API/api/runs">
<input name='{"scenario": "SCENARIO", "battles": 50000, "x": "' value='"}'></form>
<script>document.forms[0].submit();</script>""".replace("SCENARIO", FIREFIGHT)

NO_CORS_PAGE = """<!doctype html><title>no-cors</title><script>
fetch("API/api/check", {method: "POST", mode: "no-cors", credentials: "include",
  headers: {"Content-Type": "text/plain"}, body: JSON.stringify({scenario: "SCENARIO"})})
  .then(() => { window.result = "sent"; }, (err) => { window.result = String(err); });
</script>""".replace("SCENARIO", FIREFIGHT)

IMG_PAGE = """<!doctype html><title>img</title>
<img src="API/api/overview" onerror="window.result = 'error'" onload="window.result = 'load'">"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no access log in the test's output
        pass


def _static_server(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


@pytest.fixture
def browser():
    sync_api = chromium()
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def sites(tmp_path):
    """The server (allowing the first origin) and two other local origins serving pages."""
    pages = {"vtt.html": FETCH_PAGE, "form.html": FORM_PAGE, "nocors.html": NO_CORS_PAGE}
    pages["img.html"] = IMG_PAGE
    for name in ("allowed", "other"):
        (tmp_path / name).mkdir()
    allowed_httpd, allowed = _static_server(tmp_path / "allowed")
    other_httpd, other = _static_server(tmp_path / "other")
    folder = tmp_path / "scenarios"
    shutil.copytree(REPO / "scenarios", folder)
    proc, api, token = start_server(folder, "--allow-origin", allowed, workers=1)
    for name, text in pages.items():
        for site in ("allowed", "other"):
            (tmp_path / site / name).write_text(text.replace("API/", f"{api}/"))
    try:
        yield {"api": api, "token": token, "allowed": allowed, "other": other}
    finally:
        stop_server(proc)
        allowed_httpd.shutdown()
        other_httpd.shutdown()


def _result(page):
    page.wait_for_function("() => window.result !== undefined", timeout=WAIT_MS)
    return page.evaluate("() => window.result")


def test_the_allowed_origins_module_reads_the_api_and_another_origin_is_refused(browser, sites):
    page = browser.new_page()
    api, token = sites["api"], sites["token"]
    page.goto(f"{sites['allowed']}/vtt.html?api={api}&token={token}")
    got = _result(page)
    assert got["listed"] == 200 and FIREFIGHT in got["files"]
    assert got["checked"] == 200 and got["errors"] == []
    page.goto(f"{sites['other']}/vtt.html?api={api}&token={token}")
    assert "refused" in _result(page)  # the browser sees no CORS answer: a TypeError


def test_another_local_pages_form_fetch_and_img_start_nothing(browser, sites):
    api, token = sites["api"], sites["token"]
    context = browser.new_context()
    # the cookie the real page leaves in the browser (the page itself would ask the overview)
    cookie = {"name": "combatsim_token", "value": token, "url": api, "sameSite": "Strict"}
    context.add_cookies([{**cookie, "httpOnly": True}])
    page = context.new_page()
    seen: dict[str, int] = {}
    page.on("response", lambda r: seen.__setitem__(r.url.split("?")[0], r.status))

    page.goto(f"{sites['other']}/form.html")
    page.wait_for_url(f"{api}/api/runs", timeout=WAIT_MS)  # where the form posted to
    assert seen[f"{api}/api/runs"] == 403
    assert "another page" in page.content()

    page.goto(f"{sites['other']}/nocors.html")
    assert _result(page) == "sent"  # opaque to the page; the server refused it:
    page.goto(f"{sites['other']}/img.html")
    assert _result(page) == "error"
    assert seen[f"{api}/api/check"] == 403
    # The browser hides the <img>'s answer (ORB); the server shows it never began refining:
    # a moment later the overview, asked now for the first time, has no battle yet.
    page.wait_for_timeout(2000)
    request = context.request
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    rows = request.get(f"{api}/api/overview", headers=headers).json()
    assert rows and all(row["battles"] == 0 for row in rows), rows

    # Through the API: the 4 places for runs are all free, so no 50,000-battle run started.
    started = []
    for k in range(4):
        body = {"scenario": FIREFIGHT, "battles": 50_000, "page": f"probe-{k}"}
        answer = request.post(f"{api}/api/runs", headers=headers, data=json.dumps(body))
        assert answer.status == 201, answer.text()
        started.append(answer.json()["id"])
    for run_id in started:
        request.delete(f"{api}/api/runs/{run_id}", headers=headers)
    context.close()
