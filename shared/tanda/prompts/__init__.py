"""Prompts live in files beside this module; the playground replaces only ``editorial.md``."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def prompt(name: str) -> str:
    """The text of ``<name>.md``."""
    return resources.files(__name__).joinpath(f"{name}.md").read_text(encoding="utf-8").strip()
