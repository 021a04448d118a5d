"""combatsim: Monte Carlo combat encounter simulator for tabletop role-playing games.

The package is layered: ``dice`` (mechanics, sampled and exact), ``rules`` (rule systems as
plug-ins), ``engine`` (the simpy battle), ``scenario`` (validated YAML specs), ``batch``
(many battles into pandas tables) and ``cli`` (a thin command line).
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``combatsim.simulate`` without importing pandas and simpy on ``import combatsim``."""
    if name == "simulate":
        from .batch import simulate

        return simulate
    raise AttributeError(f"module 'combatsim' has no attribute {name!r}")
