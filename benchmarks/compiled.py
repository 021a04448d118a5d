"""A compiled copy of the checkout, as ``pip install .`` compiles it, to measure and test.

Run from the repository root::

    python benchmarks/compiled.py                     # builds build/compiled, checks it
    python benchmarks/compiled.py --out /tmp/fast     # somewhere else
    cd build/compiled && python benchmarks/bench_battles.py --references   # measures it

It copies the package, the benchmarks and the scenarios to ``OUT``, compiles the modules
setup.py compiles (``COMPILED``: the engine's battle loop and dice, the tactics, the rule
systems' battle code and the Shadowrun dice) with mypyc, mypy's compiler to C extensions (needs
``pip install mypy``, gcc and the Python headers: Debian's ``python3-dev``), then checks that
every shipped scenario gives the same results in the copy as in this checkout, battle for
battle (exit 1 if not). A checkout installed for editing (``pip install -e .``) runs its
Python source; the copy is how to measure or test the compiled build beside it.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _setup() -> ModuleType:
    """setup.py, whose lists this copy compiles as the install does (its ``setup()`` runs
    only as a script)."""
    spec = importlib.util.spec_from_file_location("combatsim_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SETUP = _setup()
HOT = SETUP.COMPILED
MYPY_CONFIG = SETUP.MYPYC_CONFIG
# Prints one digest of the first battles of every shipped scenario, and where the battle
# module was loaded from (a compiled copy's is a shared object)
DIGEST = """
import hashlib, json, sys
from pathlib import Path
import combatsim.engine.battle as battle
from combatsim.engine import run_battle
from combatsim.scenario import load_scenario
h = hashlib.sha256()
for path in sorted(Path(sys.argv[1]).glob("*.yaml")):
    scenario = load_scenario(path)
    for i in range(int(sys.argv[2])):
        result = run_battle(scenario, scenario.seed, i)
        rows = [result.battle, result.combatants, sorted(result.attacks.items())]
        h.update(json.dumps(rows, sort_keys=True, default=str).encode())
print(h.hexdigest(), battle.__file__)
"""


def build(out: Path) -> None:
    """The package copied to ``out`` with ``HOT`` compiled in place."""
    for part in ("combatsim", "benchmarks", "scenarios", "build"):
        shutil.rmtree(out / part, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    # the benchmarks with it: they put the folder above their own first on the path
    for part in ("combatsim", "benchmarks", "scenarios"):
        shutil.copytree(ROOT / part, out / part, ignore=shutil.ignore_patterns("*.pyc"))
    config = out / "mypyc.ini"
    config.write_text(MYPY_CONFIG)
    command = [sys.executable, "-m", "mypyc", "--config-file", str(config), *HOT]
    subprocess.run(command, cwd=out, check=True, stdout=subprocess.DEVNULL)


def digest(package_root: Path, battles: int) -> tuple[str, str]:
    """(digest of the first ``battles`` battles of every shipped scenario, the battle module's
    file) as the package under ``package_root`` plays them."""
    command = [sys.executable, "-c", DIGEST, str(ROOT / "scenarios"), str(battles)]
    env = {"PYTHONPATH": str(package_root), "PATH": "/usr/bin:/bin"}
    # run in ``package_root``: ``python -c`` looks in the current folder first
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=package_root)
    if done.returncode:
        raise SystemExit(f"compiled.py: {package_root} fails to play the scenarios:\n{done.stderr}")
    value, where = done.stdout.split()
    return value, where


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "compiled")
    parser.add_argument("--battles", type=int, default=50, help="battles per scenario checked")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    build(out)
    pure, _ = digest(ROOT, args.battles)
    compiled, where = digest(out, args.battles)
    if not where.endswith(".so"):
        print(f"compiled.py: the copy did not load its compiled battle module ({where})")
        return 1
    if compiled != pure:
        print("compiled.py: the compiled copy plays the shipped scenarios differently")
        return 1
    print(f"{out}: compiled; every shipped scenario's first {args.battles} battles the same")
    print(f"cd {out} && python benchmarks/bench_battles.py  # to measure it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
