"""The pages, shipped scenarios and the package's own code speak of the product only:
nothing points outside the repository (no rule documents by file or number, no tracker), the
code cites a rule by its name and a numbered ruling, and every ruling the code cites is a
section of docs/rulings.md."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULINGS = ROOT / "docs" / "rulings.md"

# CHANGES.md may speak of what changed; everything else a user reads may not.
PAGES = [
    ROOT / "README.md",
    ROOT / "benchmarks" / "README.md",
    *sorted((ROOT / "docs").glob("**/*.md")),
]
CODE = sorted((ROOT / "combatsim").glob("**/*.py"))
SCENARIOS = sorted(
    {*(ROOT / "scenarios").glob("**/*.yaml"), *(ROOT / "combatsim").glob("**/*.yaml")}
)

FORBIDDEN = {
    "a path outside the repository": re.compile(r"\.\./shared"),
    "the outside rulings document": re.compile(r"RULINGS\.md"),
    "a rule document by number": re.compile(r"\bseeds? 00\d", re.I),
    "a rule document by file name": re.compile(r"\b\d{3}_[0-9a-f]{16}\b|\bseeds/"),
    "a rule document as 'the seed'": re.compile(r"\bthe seed's\b|\bseed \"", re.I),
    "an issue number": re.compile(r"\bissues? #?\d+", re.I),
}
CITED = re.compile(r"\brulings? (\d+)(?:\s*-\s*(\d+))?((?:,\s*\d+)*)", re.I)


def where(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", PAGES + SCENARIOS + CODE, ids=where)
def test_says_nothing_of_outside_documents_or_the_tracker(path):
    text = path.read_text(encoding="utf-8")
    found = [
        f"{where(path)}:{text.count(chr(10), 0, match.start()) + 1}: {what}: {match.group(0)!r}"
        for what, pattern in FORBIDDEN.items()
        for match in pattern.finditer(text)
    ]
    assert not found, "\n".join(found)


def sections() -> set[int]:
    text = RULINGS.read_text(encoding="utf-8")
    headings = {int(n) for n in re.findall(r"^### (\d+)\. ", text, re.M)}
    anchors = {int(n) for n in re.findall(r'<a id="(\d+)"></a>', text)}
    assert headings == anchors, "each ruling has both a heading and an anchor"
    return headings


def cited(text: str) -> set[int]:
    numbers = set()
    for first, last, more in CITED.findall(text):
        numbers.update(range(int(first), int(last or first) + 1))
        numbers.update(int(n) for n in re.findall(r"\d+", more))
    return numbers


def test_rulings_are_numbered_one_to_n():
    have = sections()
    assert have == set(range(1, max(have) + 1))


def test_every_ruling_the_code_cites_is_a_section_of_docs_rulings():
    have = sections()
    for path in sorted((ROOT / "combatsim").glob("**/*.py")):
        missing = cited(path.read_text(encoding="utf-8")) - have
        assert not missing, f"{where(path)} cites {sorted(missing)}, not in docs/rulings.md"


def test_links_into_docs_rulings_land_on_a_section():
    have = sections()
    for path in PAGES:
        for number in re.findall(r"rulings\.md#(\d+)\)", path.read_text(encoding="utf-8")):
            assert int(number) in have, f"{where(path)}: no ruling {number}"
