"""Shadowrun: 2097 (seed 003) as a rule system for the battle engine: ``sr2097``."""
