"""The report of a chain (``combatsim chain FILE --report``, ``combatsim report DIR``): one
self-contained page with the chance to complete the run, each encounter and each member,
carried over beside every fight fresh."""

from __future__ import annotations

import json

import pytest

from combatsim.cli import main
from tests.test_report import check_page

CHAIN = "scenarios/chains/sr2097-patrol-and-boss.yaml"
PLOTS = ["encounters", "members", "resources"]


@pytest.mark.slow
def test_chain_report_names_each_encounter_and_the_completion(tmp_path, capsys):
    out = tmp_path / "chain"
    assert main(["chain", CHAIN, "--battles", "40", "--out", str(out), "--report", "--quiet"]) == 0
    page = check_page(out, PLOTS)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    for encounter in summary["encounter_order"]:
        assert encounter.replace("'", "&#x27;") in page
    for mode in ("carried", "fresh"):
        completes = summary[mode]["completes"]
        low, high = completes["ci95"]
        assert f"{completes['rate']:.1%}</td><td>{low:.1%} - {high:.1%}" in page
    assert "ends most runs" in page
    for member in summary["carried"]["members"]:
        assert f"{member['member']}, carried over" in page

    (out / "report.html").unlink()  # the report command writes the same page again
    assert main(["report", str(out)]) == 0
    assert check_page(out, PLOTS) == page


def test_report_with_trace_is_one_line(tmp_path, capsys):
    code = main(["chain", CHAIN, "--trace", "1", "--report"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "--report" in err
