"""The guard of ``combatsim serve`` attacked as a hostile page or a hostile body would: a form
or ``<img>`` of another local page, a foreign ``Origin``, a body that is not JSON, CORS for
``--allow-origin`` only, the page's security headers, ``--host 0.0.0.0``, and bodies built to
break the server (deep nesting, NaN, lone surrogates, NUL, every field of the wrong type),
each answered with one line, never a 500 or a traceback."""

from __future__ import annotations

import json
import shutil
import socket
import time
from pathlib import Path

import pytest

from combatsim.cli import main  # noqa: E402
from combatsim.serve import scenarios  # noqa: E402
from combatsim.serve.app import Server  # noqa: E402
from tests.serve.clients import page_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "guard-token"
PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"
OWN = BASE
OTHER = "http://127.0.0.1:9999"  # another local program's page: the same *site*
VTT = "http://localhost:30000"  # an allowed origin
FIREFIGHT = "sr-firefight-4v4.yaml"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
JSON_BODY = {"Content-Type": "application/json"}
GUARDS = "sides[corp security].members[Guard].count"
PAGE = "guard-test"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    served = tmp_path_factory.mktemp("guarded") / "scenarios"
    shutil.copytree(ROOT / "scenarios", served)
    return served


@pytest.fixture(scope="module")
def server(folder):
    made = Server(folder, TOKEN, workers=1, port=PORT, allow_origins=[VTT])
    yield made
    made.close()


@pytest.fixture
def bare(server):
    """A client with no token and no headers of its own: each test says what it sends."""
    with page_client(server) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def client(server):
    with page_client(server, TOKEN) as test_client:
        yield test_client


def nothing_started(server) -> bool:
    return not server.jobs.busy() and not server.jobs._jobs


def one_line_refusal(answer, status: int = 403) -> str:
    assert answer.status_code == status, answer.text
    lines = answer.json()["errors"]
    assert len(lines) == 1 and "\n" not in lines[0]
    return lines[0]


# --- requests from another page ---------------------------------------------------------------


def test_a_cross_site_form_post_to_runs_with_the_cookie_starts_nothing(bare, server):
    """A form (enctype text/plain) of a page on another port: the browser sends the cookie,
    since every port of 127.0.0.1 is one site, and a body that happens to be valid JSON."""
    body = json.dumps({"scenario": FIREFIGHT, "battles": 50_000, "x": "="})
    answer = bare.post(
        "/api/runs",
        content=body,
        headers={
            "Content-Type": "text/plain",
            "Origin": OTHER,
            "Sec-Fetch-Site": "same-site",
            "Sec-Fetch-Mode": "navigate",
            "Cookie": f"combatsim_token={TOKEN}",
        },
    )
    assert "another page" in one_line_refusal(answer)
    assert nothing_started(server)


@pytest.mark.parametrize(
    "method, path",
    [
        ("POST", "/api/runs"),
        ("POST", "/api/check"),
        ("POST", "/api/studies"),
        ("POST", "/api/trace"),
        ("POST", "/api/odds"),
        ("PUT", "/api/scenarios/planted.yaml"),
        ("DELETE", "/api/runs/0123456789abcdef"),
    ],
)
@pytest.mark.parametrize("kind", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_change_that_is_not_json_is_refused_before_any_work(bare, server, method, path, kind):
    """What a form or a no-cors fetch can send, even with the token (as a script would)."""
    headers = {**AUTH, **({"Content-Type": kind} if kind else {})}
    body = json.dumps({"scenario": FIREFIGHT, "battles": 10, "yaml": "name: x\n"})
    answer = bare.request(method, path, content=body, headers=headers)
    assert "Content-Type: application/json" in one_line_refusal(answer)
    assert nothing_started(server)
    assert not (server.served.root / "planted.yaml").exists()


def test_json_with_a_charset_is_json(client):
    answer = client.post(
        "/api/check",
        json={"scenario": FIREFIGHT},
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert answer.status_code == 200


@pytest.mark.parametrize("origin", [OTHER, "https://evil.example", "null", f"http://{BASE}"])
def test_a_post_from_a_foreign_origin_is_refused_even_as_json(client, server, origin):
    """A fetch from another page (cors or no-cors) says where it comes from."""
    answer = client.post("/api/check", json={"scenario": FIREFIGHT}, headers={"Origin": origin})
    assert "another page" in one_line_refusal(answer)


@pytest.mark.parametrize("origin", [OWN, f"http://localhost:{PORT}"])
def test_the_pages_own_origin_is_let_in(client, origin):
    answer = client.post("/api/check", json={"scenario": FIREFIGHT}, headers={"Origin": origin})
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize(
    "path", ["/api/overview", "/api/scenarios", "/api/runs/0123456789abcdef/events"]
)
@pytest.mark.parametrize("site", ["same-site", "cross-site"])
def test_an_img_or_a_link_from_another_page_starts_nothing(bare, server, path, site):
    """``<img src=http://127.0.0.1:PORT/api/overview>`` on another port's page: the cookie
    goes along, no Origin does; Sec-Fetch-Site tells it from the page's own requests."""
    headers = {"Cookie": f"combatsim_token={TOKEN}", "Sec-Fetch-Site": site}
    for mode in ("no-cors", "navigate"):
        answer = bare.get(path, headers={**headers, "Sec-Fetch-Mode": mode})
        assert "another page" in one_line_refusal(answer)
    assert server.overview._thread is None  # the background refining never began


def test_the_page_itself_and_a_link_to_it_from_elsewhere_are_let_in(bare):
    for site in ("same-origin", "none", "cross-site", "same-site"):
        headers = {"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "navigate"}
        assert bare.get(f"/?token={TOKEN}", headers=headers).status_code == 200, site
    same = {"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", **AUTH}
    assert bare.get("/api/scenarios", headers=same).status_code == 200


# --- CORS for --allow-origin ------------------------------------------------------------------


def test_an_allowed_origin_gets_its_preflight_and_its_answers(bare):
    preflight = bare.options(
        "/api/check",
        headers={
            "Origin": VTT,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
            "Sec-Fetch-Site": "same-site",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == VTT
    assert "POST" in preflight.headers["access-control-allow-methods"]
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert "authorization" in allowed and "content-type" in allowed
    cors = {"Origin": VTT, "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors"}
    answer = bare.post(
        "/api/check", json={"scenario": FIREFIGHT}, headers={**cors, **AUTH, **JSON_BODY}
    )
    assert answer.status_code == 200 and answer.headers["access-control-allow-origin"] == VTT
    cookie = {"Cookie": f"combatsim_token={TOKEN}"}  # the page's: never another origin's
    no_token = bare.post("/api/check", json={"scenario": FIREFIGHT}, headers={**cors, **cookie})
    assert "token" in one_line_refusal(no_token)
    assert no_token.headers["access-control-allow-origin"] == VTT  # so the module can read why


def test_another_origin_gets_no_cors(bare):
    preflight = bare.options(
        "/api/check", headers={"Origin": OTHER, "Access-Control-Request-Method": "POST"}
    )
    assert preflight.status_code == 403
    assert "access-control-allow-origin" not in preflight.headers
    answer = bare.get("/api/scenarios", headers={**AUTH, "Origin": OTHER})
    assert answer.status_code == 403 and "access-control-allow-origin" not in answer.headers


@pytest.mark.parametrize(
    "value", ["localhost:30000", "http://localhost:30000/vtt", "ftp://x", "http://x:99999", "*"]
)
def test_allow_origin_takes_only_an_origin(value, capsys):
    assert main(["serve", "--allow-origin", value, "--no-browser", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--allow-origin" in err and len(err.splitlines()) == 1


# --- the page's own defences ------------------------------------------------------------------


def test_the_page_sends_a_content_security_policy_and_refuses_frames(bare):
    page = bare.get(f"/?token={TOKEN}")
    policy = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"  # the address holds the token


def test_the_page_needs_no_inline_script_the_policy_forbids(bare):
    html = bare.get(f"/?token={TOKEN}").text
    assert "<script>" not in html.replace(" ", "")
    assert not [word for word in html.split() if word.lower().startswith("on") and "=" in word]


# --- --host 0.0.0.0 ---------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_serving_on_every_address_answers_the_machines_own_addresses(folder, host):
    server = Server(folder, TOKEN, workers=1, host=host, port=PORT)
    try:
        lan = f"http://192.168.1.5:{PORT}"  # the address a tablet reached it at
        with page_client(server, base=lan) as tablet:
            assert tablet.get("/api/scenarios", headers=AUTH).status_code == 200
            changed = tablet.post(
                "/api/check", json={"scenario": FIREFIGHT}, headers={**AUTH, "Origin": lan}
            )
            assert changed.status_code == 200
            named = {"Host": f"{socket.gethostname()}:{PORT}", **AUTH}
            assert tablet.get("/api/scenarios", headers=named).status_code == 200
            rebound = {"Host": f"evil.example:{PORT}", **AUTH}
            assert tablet.get("/api/scenarios", headers=rebound).status_code == 403
            other = tablet.get("/api/scenarios", headers={"Host": f"10.9.9.9:{PORT}", **AUTH})
            assert other.status_code == 403  # not the address the request came to
    finally:
        server.close()


# --- hostile bodies ---------------------------------------------------------------------------

ROUTES = [
    ("POST", "/api/runs"),
    ("POST", "/api/check"),
    ("POST", "/api/studies"),
    ("POST", "/api/trace"),
    ("POST", "/api/odds"),
    ("PUT", "/api/scenarios/hostile.yaml"),
]
NAN_YAML = (
    (ROOT / "scenarios" / FIREFIGHT)
    .read_text()
    .replace("turn_limit: 20", "turn_limit: .nan", 1)
    .replace("archetype: street_samurai,", "archetype: street_samurai, karma: -.inf,", 1)
)


def strict_json(text: str):
    def refuse(name):
        raise AssertionError(f"{name} in a JSON answer")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("method, path", ROUTES)
@pytest.mark.parametrize(
    "body",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"set": ' + "[" * 5_000 + "]" * 5_000 + "}",
        '{"scenario": "' + FIREFIGHT + '", "battles": NaN}',
        '{"scenario": "' + FIREFIGHT + '", "seed": Infinity}',
        '{"scenario": "' + FIREFIGHT + '", "args": {"dice": -Infinity}}',
        '{"scenario": "\\ud800.yaml"}',
        '{"yaml": "name: \\udcff\\n"}',
        '{"scenario": "' + FIREFIGHT + '", "set": ["name=\\ud83d"]}',
        '{"\\udc80": 1}',
    ],
    ids=[
        "deep",
        "deep-set",
        "nan",
        "infinity",
        "minus-infinity",
        "surrogate-name",
        "surrogate-yaml",
        "surrogate-set",
        "surrogate-key",
    ],
)
def test_a_hostile_body_is_one_line_422_on_every_route(client, server, method, path, body):
    answer = client.request(method, path, content=body.encode("utf-8", "surrogatepass"))
    assert one_line_refusal(answer, 422)
    assert nothing_started(server)


@pytest.mark.parametrize("method, path", ROUTES[:4])
def test_a_nul_in_a_catalogue_or_table_path_of_uploaded_yaml_is_one_line(client, method, path):
    text = (ROOT / "scenarios" / FIREFIGHT).read_text()
    lost = (ROOT / "scenarios" / "lost-souls-junkyard-dogs.yaml").read_text()
    catalogues = "catalogues: [catalogues/sr-classic.yaml]"
    rules = "rules:\n  system: lost-souls\n"
    assert catalogues in text and rules in lost
    for hostile in (
        text.replace(catalogues, 'catalogues: [catalogues/sr-classic.yaml, "cat\\0.yaml"]'),
        lost.replace(rules, rules + '  options:\n    action_table: "t\\0.yaml"\n'),
    ):
        body = {"yaml": hostile, "kind": "sweep", "vary": [f"{GUARDS}=1..2"]}
        answer = client.request(method, path, json=body)
        assert answer.status_code < 500, answer.text
        shown = json.dumps(answer.json())
        assert "NUL" in shown and "embedded null" not in shown, shown


def test_nan_in_uploaded_yaml_comes_back_as_valid_json(client):
    assert ".nan" in NAN_YAML and "-.inf" in NAN_YAML
    answer = client.post("/api/check", json={"yaml": NAN_YAML})
    assert answer.status_code == 200, answer.text
    view = strict_json(answer.text)["view"]
    assert view["options"]["turn_limit"] is None
    assert view["sides"][0]["members"][0]["numbers"]["karma"] is None


WRONG = [None, True, -1, 1.5, 10**40, "", "x", "../../etc/passwd", [], {}, [1], ["x=1"], {"a": 1}]
FIELDS = {
    "/api/runs": ["scenario", "yaml", "set", "battles", "precision", "seed", "page"],
    "/api/check": ["scenario", "yaml", "set"],
    "/api/studies": [
        "kind",
        "scenario",
        "yaml",
        "set",
        "vary",
        "battles",
        "a_set",
        "b_set",
        "target",
        "side",
        "metric",
        "page",
        "seed",
        "precision",
    ],
    "/api/trace": ["scenario", "yaml", "set", "battle", "seed"],
    "/api/odds": ["calculator", "system", "args"],
    "/api/scenarios/typed.yaml": ["yaml", "overwrite"],
}
BASES = {
    "/api/runs": {"scenario": FIREFIGHT, "battles": 2, "page": PAGE},
    "/api/check": {"scenario": FIREFIGHT},
    "/api/studies": {
        "kind": "sweep",
        "scenario": FIREFIGHT,
        "vary": [f"{GUARDS}=1..2"],
        "battles": 2,
        "page": PAGE,
    },
    "/api/trace": {"scenario": FIREFIGHT},
    "/api/odds": {"calculator": "sr-opposed", "args": {}},
    "/api/scenarios/typed.yaml": {
        "yaml": (ROOT / "scenarios" / FIREFIGHT).read_text(),
        "overwrite": True,
    },
}


# Fields a sweep study leaves to other kinds of study or takes from its run: each wrong value
# of them starts and cancels a sweep, 0.3 s of CPU a field for no path the fast loop lacks.
SLOW_FIELDS = {("/api/studies", f) for f in ("a_set", "b_set", "target", "side", "metric")}
SLOW_FIELDS |= {("/api/studies", f) for f in ("page", "seed")}


@pytest.mark.parametrize(
    "path, field",
    [
        pytest.param(p, f, marks=[pytest.mark.slow] if (p, f) in SLOW_FIELDS else [])
        for p, fields in FIELDS.items()
        for f in fields
    ],
)
def test_every_field_of_the_wrong_type_is_never_a_500(client, path, field, capfd):
    method = "PUT" if path.startswith("/api/scenarios/") else "POST"
    for value in WRONG:
        body = {**BASES[path], field: value}
        answer = client.request(method, path, json=body)
        assert answer.status_code < 500, (value, answer.text)
        strict_json(answer.text)
        if answer.status_code >= 400:
            assert all("\n" not in str(line) for line in answer.json()["errors"])
    deadline = time.monotonic() + 60
    while client.app.state.server.jobs.busy() and time.monotonic() < deadline:
        client.app.state.server.jobs.cancel_all()
        time.sleep(0.05)
    assert "Traceback" not in capfd.readouterr().err


# --- the last safety net ----------------------------------------------------------------------


def test_an_unexpected_error_is_one_json_line_and_one_log_line(client, monkeypatch, capfd):
    def broken(server):
        raise RuntimeError("a bug\nin two lines")

    monkeypatch.setattr(scenarios, "scenario_rows", broken)
    answer = client.get("/api/scenarios")
    assert "RuntimeError" in one_line_refusal(answer, 500)
    err = capfd.readouterr().err
    assert "Traceback" not in err
    logged = [line for line in err.splitlines() if "RuntimeError" in line]
    assert len(logged) == 1 and "GET /api/scenarios" in logged[0] and "app.py" not in answer.text


@pytest.mark.parametrize("method, path", [("GET", "/api/nowhere"), ("PATCH", "/api/runs")])
def test_no_such_route_or_method_is_a_json_line(client, method, path):
    answer = client.request(method, path)
    assert answer.status_code in (404, 405)
    assert len(answer.json()["errors"]) == 1
