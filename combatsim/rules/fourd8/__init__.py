"""``4d8``: seed 004's roll-under 4D8 system as a rule system (see system.py)."""
