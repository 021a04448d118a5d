"""Edits written into a scenario's text keep the rest of it as its author wrote it."""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from combatsim.serve.roundtrip import write_into
from tests.serve.serving import REPO

SHIPPED = sorted((REPO / "scenarios").rglob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO / "scenarios")))
def test_an_unedited_file_reads_back_the_same_with_its_comments(path):
    text = path.read_text()
    out = write_into(text, yaml.safe_load(text))
    assert yaml.safe_load(out) == yaml.safe_load(text)
    comments = [line.split("#", 1)[1] for line in text.splitlines() if " #" in line]
    assert [line.split("#", 1)[1] for line in out.splitlines() if " #" in line] == comments


def test_an_edit_changes_its_value_only():
    text = (REPO / "scenarios" / "sr-firefight-4v4.yaml").read_text()
    data = copy.deepcopy(yaml.safe_load(text))
    data["sides"][1]["members"][1]["count"] = 5
    out = write_into(text, data, name="Five guards")
    changed = [(a, b) for a, b in zip(text.splitlines(), out.splitlines(), strict=True) if a != b]
    assert len(changed) == 2, changed  # the name's line and the guards' count
    assert yaml.safe_load(out) == {**data, "name": "Five guards"}


def test_yaml_1_1_flags_stay_as_written():
    text = "rules:\n  options:\n    edge: off  # no Edge\n    tn_cap: on\n"
    data = yaml.safe_load(text)
    assert write_into(text, data) == text
    data["rules"]["options"]["edge"] = True
    assert re.search(r"edge: true +# no Edge", write_into(text, data))
