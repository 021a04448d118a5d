"""Every random stream in combatsim comes from here.

One root seed; battle ``i`` draws from ``SeedSequence(root).spawn``'s i-th child, so a battle is
the same battle whether it ran alone, in a batch of ten, on one worker or on eight.
Nothing in the package uses the global ``random`` module or ``numpy.random.*`` functions.
"""

import numpy as np


def battle_seed(root_seed: int, index: int) -> np.random.SeedSequence:
    """The seed sequence of battle ``index`` under ``root_seed``.

    Equivalent to ``SeedSequence(root_seed).spawn(index + 1)[index]`` without spawning the
    ``index`` streams before it, so a worker or a replay can jump straight to one battle.
    """
    return np.random.SeedSequence(root_seed, spawn_key=(index,))


def battle_rng(root_seed: int, index: int) -> np.random.Generator:
    """The generator battle ``index`` uses, independent of batch size and worker count."""
    return np.random.Generator(np.random.PCG64(battle_seed(root_seed, index)))


def chain_seed(root_seed: int, chain: int) -> int:
    """The root seed the fights of chain ``chain`` under ``root_seed`` run under: fight ``k``
    of the chain is battle ``k`` of it, so its stream is derived from (root, chain, k) alone and
    chain ``chain`` replays identically whatever ran before it or beside it."""
    words = battle_seed(root_seed, chain).generate_state(4, np.uint32)
    return int.from_bytes(words.astype("<u4").tobytes(), "little")
