"""combatsim: Monte Carlo combat encounter simulator for tabletop role-playing games.

The package is layered: ``dice`` (mechanics, sampled and exact), ``rules`` (rule systems as
plug-ins), ``engine`` (the simpy battle), ``scenario`` (validated YAML specs), ``batch``
(many battles into pandas tables) and ``cli`` (a thin command line).
"""

__version__ = "0.1.0"
