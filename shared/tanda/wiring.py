"""The one factory that turns settings into adapters (DESIGN §1: one code path).

A ``Runtime`` is built once per process (per Lambda container) and handed to the app; each
adapter is built on first use so a route pays only for what it touches (cold start).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from tanda.settings import Settings, load_settings

if TYPE_CHECKING:
    from tanda.auth import Authenticator


@dataclass
class Runtime:
    settings: Settings

    @cached_property
    def authenticator(self) -> Authenticator:
        from tanda.auth import Authenticator

        return Authenticator.from_settings(self.settings)


def build_runtime(settings: Settings | None = None) -> Runtime:
    return Runtime(settings=settings or load_settings())
