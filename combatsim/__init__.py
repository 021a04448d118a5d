"""combatsim: Monte Carlo combat encounter simulator for tabletop role-playing games.

The package is layered: ``dice`` (mechanics, sampled and exact), ``rules`` (rule systems as
plug-ins), ``engine`` (the simpy battle), ``scenario`` (validated YAML specs), ``batch``
(many battles tallied as they finish, into pandas tables), ``backends`` (where chunks of
battles run: here, on local processes, on a Dask cluster), ``sweeps`` (variants, comparisons,
balance searches, resumable runs), ``report`` (plots and HTML) and ``cli`` (a thin command
line).
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``combatsim.simulate`` and ``combatsim.sweep`` without importing pandas and simpy on
    ``import combatsim``."""
    if name == "simulate":
        from .batch import simulate

        return simulate
    if name == "sweep":
        from .sweeps.api import sweep

        return sweep
    raise AttributeError(f"module 'combatsim' has no attribute {name!r}")
