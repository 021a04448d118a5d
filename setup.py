"""The build's one job beyond pyproject.toml: compile the modules a battle spends its time in.

``COMPILED`` are compiled with mypyc (mypy's compiler from typed Python to C extensions),
which plays every battle the same at about a third less cost (benchmarks/README.md). The
Python source stays the reference: it is installed beside the extensions, the tests check
both, and Python is what you get

* when ``COMBATSIM_PURE=1`` is set,
* in an editable install (``pip install -e .``), so that an edit takes effect,
* where the compile cannot run (no C compiler or no Python headers, Debian's
  ``python3-dev``): the build says so in one warning and installs the Python modules.

``combatsim --version`` says which one is installed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

# What else stays Python, and why (measured): docs/development.md, "The compiled build"
COMPILED = (
    "combatsim/engine/battle.py",
    "combatsim/engine/field.py",
    "combatsim/engine/fighter.py",
    "combatsim/engine/holds.py",
    "combatsim/engine/roll.py",
    "combatsim/tactics/policies.py",
    "combatsim/rules/shadowrun/system.py",
    "combatsim/rules/sr2097/system.py",
    "combatsim/dice/shadowrun.py",
    "combatsim/rules/lost_souls/system.py",
    "combatsim/rules/fourd8/system.py",
)
# What mypyc type-checks them with: the project's own settings that matter to the compile.
# Modules not installed where the build runs are taken as untyped (their values as ``Any``,
# handled as Python would), which changes no result, only how much the compiler can know.
# (No ``python_version``: mypyc compiles for the Python that runs the build.)
MYPYC_CONFIG = """[mypy]
plugins = pydantic.mypy
ignore_missing_imports = true
"""


def _warn(why: str) -> None:
    print(f"combatsim: installing pure Python ({why[:300]})", file=sys.stderr)


# The commands that build the modules. ``pip install .`` runs this file three times (the build
# requirements, the metadata, the wheel: PEP 517's three steps, each its own process); only the
# last builds, so only it may run mypyc, the minute-long step.
BUILDS = {"bdist_wheel", "build", "build_ext", "install", "bdist", "bdist_egg"}


def _extensions() -> list:
    if os.environ.get("COMBATSIM_PURE"):
        return []
    if "editable_wheel" in sys.argv or "develop" in sys.argv:
        return []  # editable: the source itself runs (the build command says so too)
    if not BUILDS & set(sys.argv[1:]):
        return []  # metadata or a source archive: nothing is compiled, nothing need be planned
    try:
        from mypyc.build import mypycify
    except ImportError:
        _warn("mypyc is not installed")
        return []
    config = Path("build") / "mypyc.ini"  # beside the C files mypyc writes to build/
    config.parent.mkdir(exist_ok=True)
    config.write_text(MYPYC_CONFIG)
    try:
        return mypycify(["--config-file", str(config), *COMPILED], opt_level="3")
    except (Exception, SystemExit) as err:  # mypy's type errors end in SystemExit
        _warn(f"mypyc could not compile: {err}")
        return []


class OptionalBuildExt(build_ext):
    """Build the compiled modules, or none of them: a machine that cannot compile them gets
    the pure-Python package (the extensions only shadow modules installed anyway)."""

    def run(self) -> None:
        if getattr(self, "editable_mode", False) or self.inplace:
            return  # an editable or in-place build: the source runs as it is
        try:
            super().run()
        except Exception as err:  # no compiler, no headers: every compiler error type
            for ext in self.extensions:  # a compiled module half built would not import
                Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            _warn(f"the C compile failed: {err}")


if __name__ == "__main__":
    setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
