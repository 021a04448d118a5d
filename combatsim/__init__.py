"""combatsim: Monte Carlo combat encounter simulator for tabletop role-playing games.

The package is layered (docs/architecture.md draws the layers): ``dice`` (mechanics, sampled
and exact), ``rules`` (rule systems as plug-ins) and ``tactics``, ``scenario`` (validated YAML
specs), ``engine`` (the simpy battle), ``run`` (the run layer: battles in chunks on this
process, local processes or a Dask cluster, tallied as they finish, journalled for resume,
watched and cancelled), ``sweeps`` (variants, comparisons, balance searches, explanations),
and on top ``report`` (plots and HTML), ``api`` (the Python entry points below) and ``cli``
(a thin command line).

``import combatsim`` stays light: the entry points are imported on first use (module
``__getattr__``), so the command line's ``--help`` and a notebook's first cell pull in neither
pandas nor simpy. ``dir(combatsim)`` lists them all the same.
"""

import importlib as _importlib

__version__ = "0.1.0"

# name -> the module (relative to this package) that defines it
_LAZY = {
    "simulate": "api",
    "run_many": "api",
    "sweep": "api",
    "chain": "api",
    "compare": "api",
    "balance": "api",
    "explain": "api",
    "design": "api",
    "Result": "sweeps.results",
    "Cancel": "run.cancel",
    "load_scenario": "scenario",
}

__all__ = [*_LAZY, "__version__", "build_kind"]


def build_kind() -> str:
    """``"compiled"`` when the modules a battle spends its time in were installed compiled
    (setup.py: mypyc's C extensions, which play every battle the same), else
    ``"pure Python"``. Looked up on disk, without importing the engine."""
    import os
    from importlib.machinery import EXTENSION_SUFFIXES

    engine = os.path.join(os.path.dirname(__file__), "engine")
    found = any(os.path.exists(os.path.join(engine, f"battle{s}")) for s in EXTENSION_SUFFIXES)
    return "compiled" if found else "pure Python"


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'combatsim' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *(n for n in globals() if not n.startswith("_") or n[:2] == "__")})
