"""What start-up imports: a worker never pandas or matplotlib; ``validate`` none of the heavy
libraries (the time ``validate`` takes is measured in ``benchmarks/bench_startup.py``).

A worker receives ``run_task`` with a ``Job`` and a ``Task`` (pickled by reference to their
modules) and runs battles. Whatever start method the pool uses (fork, spawn, a Dask worker),
unpickling and running a task must not pull in the table and plotting libraries: pandas alone
costs about a second of start-up per worker. A fresh interpreter unpickles and runs a real
task of a shipped scenario and reports what it imported.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from combatsim.engine import run_battle
from combatsim.run.chunks import Job, Task, run_task
from combatsim.scenario import load_scenario

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
    "print(code, *sorted(m for m in ('numpy', 'pandas', 'simpy', 'matplotlib', 'scipy') "
    "if m in sys.modules))"
)


def test_validate_imports_no_numpy_pandas_simpy_or_matplotlib():
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


def _imports(path: Path) -> set[str]:
    """The absolute module names a source file imports (type-checking imports included)."""
    import ast

    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
