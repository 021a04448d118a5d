"""combatsim: Monte Carlo combat encounter simulator for tabletop role-playing games.

The package is layered: ``dice`` (mechanics, sampled and exact), ``rules`` (rule systems as
plug-ins), ``engine`` (the simpy battle), ``scenario`` (validated YAML specs), ``batch``
(many battles tallied as they finish, into pandas tables), ``backends`` (where chunks of
battles run: here, on local processes, on a Dask cluster), ``sweeps`` (variants, comparisons,
balance searches, resumable runs), ``report`` (plots and HTML), ``api`` (the Python entry
points below) and ``cli`` (a thin command line).

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
    "compare": "api",
    "balance": "api",
    "explain": "api",
    "Result": "sweeps.api",
    "load_scenario": "scenario",
}

__all__ = [*_LAZY, "__version__"]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'combatsim' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *(n for n in globals() if not n.startswith("_") or n[:2] == "__")})
