"""``lost-souls``: seed 001's bonus and penalty dice as a rule system (see system.py)."""
