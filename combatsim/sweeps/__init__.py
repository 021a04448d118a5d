"""Sweeps, comparisons and balance searches: many variants of a scenario, honestly compared.

``fields`` makes variants (a field path set to other values, validated again); ``study`` runs
them in rounds on any backend, journals finished chunks to a resumable folder and stops at a
requested precision; ``api`` is the library face (``sweep``, ``compare``, ``balance``,
``run_many``) the commands call; ``explain`` ranks every lever of a scenario by its paired
effect on a rate.
"""
