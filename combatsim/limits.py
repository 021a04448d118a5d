"""The bounds and defaults of every argument a run takes, in the CLI and the Python API alike.

One home for each number: ``combatsim run --battles``, ``combatsim.simulate(battles=...)``
and a sweep file's ``battles:`` are all checked against the same constant, and start from the
same default. This module imports nothing, so ``combatsim --help`` and ``import combatsim``
stay quick; ``docs/limits.md`` lists the numbers for users.
"""

from __future__ import annotations

# Defaults.
DEFAULT_BATTLES = 1000  # per scenario or variant, when no number is given
CHUNK_SIZE = 250  # battles per unit of work; no result depends on it
RECORDS = ("none", "battles", "all")  # what per-battle records a run may keep

# Bounds.
MAX_BATTLES = 100_000_000  # per scenario or variant
DEFAULT_MAX_BATTLES = 1_000_000  # with a precision target, when no maximum is given
MAX_WORKERS = 1024  # accepted; at most 4 per core and one per task are started
MAX_SEED = 2**64 - 1  # root seeds: numpy's SeedSequence takes any, 64 bits are plenty
MAX_CHUNK_SIZE = 1_000_000
MIN_PRECISION = 0.0001  # a finer target needs more than 10^8 battles per variant
PRECISION_BELOW = 0.5  # a precision target is below this: +-0.5 would say nothing
MAX_VALUES = 10_000  # values of one varied field
MAX_VARIES = 16  # varied fields of one sweep
MAX_VARIANTS = 10_000  # combinations of a sweep's values; scenarios of one batch in the API
MAX_SETS = 1_000  # fields set on one side of a comparison
MAX_DIGITS = 100  # digits of an integer written in an argument (a seed needs 20)
MAX_PATH_STEPS = 50  # keys and [..] of a field path: as deep as a file may nest
MAX_ENCOUNTERS = 100  # encounters of one chain file
MAX_HEAL = 1_000  # what one rest of a chain may heal, in the system's own unit
