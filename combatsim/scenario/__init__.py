"""Scenario files: validated once at load into immutable ``Scenario`` objects."""

from .loader import build_scenario, is_catalogue, load_catalogue, load_file, load_scenario
from .model import FighterSpec, Scenario, SideSpec

__all__ = [
    "FighterSpec",
    "Scenario",
    "SideSpec",
    "build_scenario",
    "is_catalogue",
    "load_catalogue",
    "load_file",
    "load_scenario",
]
