"""What start-up imports: a worker never pandas or matplotlib; ``validate`` none of the heavy
libraries (the time ``validate`` takes is measured in ``benchmarks/bench_startup.py``).

A worker receives ``run_task`` with a ``Job`` and a ``Task`` (pickled by reference to their
modules) and runs battles. Whatever start method the pool uses (fork, spawn, a Dask worker),
unpickling and running a task must not pull in the table and plotting libraries: pandas alone
costs about a second of start-up per worker. A fresh interpreter unpickles and runs a real
task of a shipped scenario and reports what it imported.
"""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys
from pathlib import Path

from combatsim.engine import run_battle
from combatsim.run.chunks import Job, Task, run_task
from combatsim.scenario import load_scenario
from tests.sources import forget_the_trees, parsed_file  # noqa: F401 - a fixture

ROOT = Path(__file__).resolve().parents[1]
PROBE = (
    "import pickle, sys; "
    "run, job, task = pickle.loads(sys.stdin.buffer.read()); "
    "chunk = run(job, task); "
    "print(chunk.stop, *sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))"
)


def test_a_worker_running_a_task_imports_neither_pandas_nor_matplotlib():
    scenario = load_scenario(ROOT / "scenarios" / "sr-firefight-4v4.yaml")
    job = Job((scenario,), run_battle, (scenario.seed,), records="all")
    payload = pickle.dumps((run_task, job, Task((0,), 0, 3)))
    done = subprocess.run(
        [sys.executable, "-c", PROBE], input=payload, capture_output=True, check=True, cwd=ROOT
    )
    assert done.stdout.decode().split() == ["3"], done.stdout.decode() + done.stderr.decode()


VALIDATE = (
    "import sys; from combatsim.cli import main; code = main(['validate', *sys.argv[1:]]); "
    "heavy = ('numpy', 'pandas', 'simpy', 'matplotlib', 'scipy', 'starlette', 'uvicorn'); "
    "print(code, *sorted(m for m in heavy if m in sys.modules))"
)


def test_validate_imports_no_numpy_pandas_simpy_matplotlib_or_web_stack():
    """Checking a scenario needs the models and the rule system, not the numeric stack."""
    files = [
        f"scenarios/{name}.yaml"
        for name in (
            "sr-firefight-4v4",
            "sr2097-runners-vs-patrol",
            "4d8-dockside-shootout",
            "lost-souls-warehouse-raid",
        )
    ]
    done = subprocess.run(
        [sys.executable, "-c", VALIDATE, *files], capture_output=True, check=True, cwd=ROOT
    )
    assert done.stdout.decode().split()[-1:] == ["0"], done.stdout.decode()


# --- the import graph of the whole package -------------------------------------------------------

PACKAGE = ROOT / "combatsim"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
LAYERS_MARK = "<!-- layers:"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:``. They never run, so they cannot
    close a cycle; they are left out of the cycle check (and kept in the layer check: a
    type-only dependency on a higher layer still ties the layers together)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                found.update(id(n) for n in ast.walk(inner))
    return found


def _owner(name: str) -> str | None:
    """The module of the package a dotted name lives in (``combatsim.run.Study``: run)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _edges(name: str, with_type_checking: bool) -> set[str]:
    """The package's modules that module ``name`` imports, at module level and inside
    functions. A module's own packages are left out: Python runs a package before any of
    its modules, so importing it (``from . import __path__``) never runs code not yet run."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = parsed_file(path)
    skip = set() if with_type_checking else _type_checking_only(tree)
    targets: set[str | None] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets.update(_owner(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            # ``from . import levers`` imports the module ``levers``, not the package
            targets.update(_owner(f"{module}.{alias.name}") for alias in node.names)
    ancestors = {name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)}
    return {t for t in targets if t is not None and t != name and t not in ancestors}


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of modules (first = last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def read_layers(text: str) -> list[tuple[str, list[str]]]:
    """The layer picture of ``docs/architecture.md``, highest first: (layer, [modules])."""
    after = text[text.index(LAYERS_MARK) :]
    start = after.index("```text") + len("```text")
    block = after[start : after.index("```", start)]
    layers = []
    for line in block.strip().splitlines():
        layer, *members = line.split()
        layers.append((layer, members))
    return layers


def _layer_of(name: str, layers: list[tuple[str, list[str]]]) -> int | None:
    """The rank of the layer module ``name`` is in (0 the lowest), or None."""
    inner = name.removeprefix("combatsim").removeprefix(".") or "__init__"
    for rank, (_, members) in enumerate(reversed(layers)):
        for member in members:
            if inner == member or inner.startswith(member + "."):
                return rank
    return None


def test_no_import_cycle_in_the_package_counting_imports_inside_functions():
    graph = {name: _edges(name, with_type_checking=False) for name in MODULES}
    cycle = _find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_cycle_and_names_it():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _find_cycle(graph) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_every_module_is_in_a_layer_of_the_architecture_picture():
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    lost = [name for name in MODULES if _layer_of(name, layers) is None]
    assert not lost, f"modules in no layer of {ARCHITECTURE.name}: {lost}"


def test_no_module_imports_from_a_higher_layer():
    """The layers of docs/architecture.md, lowest last: an import runs down or sideways."""
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    names = [layer for layer, _ in reversed(layers)]
    upward = []
    for name in MODULES:
        mine = _layer_of(name, layers)
        for target in sorted(_edges(name, with_type_checking=True)):
            theirs = _layer_of(target, layers)
            if mine is not None and theirs is not None and theirs > mine:
                upward.append(f"{name} ({names[mine]}) imports {target} ({names[theirs]})")
    assert not upward, "imports up the layers:\n" + "\n".join(upward)


def test_the_layer_check_catches_an_upward_import():
    layers = [("top", ["api"]), ("bottom", ["dice"])]
    assert _layer_of("combatsim.dice.exact", layers) == 0
    assert _layer_of("combatsim.api", layers) == 1
    assert _layer_of("combatsim.apis", layers) is None


def _imports(path: Path) -> set[str]:
    """The absolute module names a source file imports (type-checking imports included)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(parsed_file(path)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                names.add(".".join([*base, node.module] if node.module else base))
            else:
                names.add(node.module)
    return names


def test_rules_and_tactics_never_import_the_engine():
    """One-way layers: the engine hands rules and tactics the battle (rules/base.py's
    ``BattleView`` and ``Combatant``); they do not reach back into it."""
    for layer in ("rules", "tactics"):
        for path in sorted((ROOT / "combatsim" / layer).rglob("*.py")):
            engine = {n for n in _imports(path) if n.startswith("combatsim.engine")}
            assert not engine, f"{path.relative_to(ROOT)} imports {sorted(engine)}"


def private_imports(path: Path) -> list[str]:
    """``from X import _name`` lines of a module: a name another module keeps to itself (an
    alias such as ``html_name as _n`` imports a public name and is fine)."""
    found = []
    for node in ast.walk(parsed_file(path)):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
    return found


def test_no_module_imports_a_name_another_keeps_private():
    """A name shared across modules is public (the page once read the CLI's ``_values``)."""
    shared = {name: lines for name, path in MODULES.items() if (lines := private_imports(path))}
    assert not shared, shared


def test_the_private_import_check_finds_one(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from .output import _pct, table\nfrom ..names import html_name as _n\n")
    assert private_imports(module) == ["line 1: from output import _pct"]


def test_the_page_shares_the_command_lines_public_functions_not_its_commands():
    """The page sits beside the command line: what both need lives below them both."""
    reaching = {
        name: sorted(t for t in _edges(name, with_type_checking=True) if ".commands" in t)
        for name in MODULES
        if name.startswith("combatsim.serve")
    }
    assert not {name: found for name, found in reaching.items() if found}
