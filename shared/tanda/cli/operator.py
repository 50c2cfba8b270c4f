"""What the operator commands share (``tanda keys|tenants|credits``, issue 27): the Store they
work on — the one the settings name (``TANDA_STORE``), or ``--store`` — who is running them, and
how a time is printed."""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tanda.wiring import Runtime

STORES = ("sqlite", "dynamodb")


def fail(command: str, message: str, code: int = 2) -> int:
    print(f"tanda {command}: {message}", file=sys.stderr)
    return code


def add_store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store",
        choices=STORES,
        default=None,
        help="the Store to work on (default: TANDA_STORE; dynamodb reads TANDA_DYNAMODB_TABLE "
        "as the functions do)",
    )


def operator_runtime(args: argparse.Namespace) -> Runtime:
    """The runtime of the settings, on the Store ``--store`` names if given."""
    from tanda.settings import load_settings
    from tanda.wiring import build_runtime

    settings = load_settings()
    store = getattr(args, "store", None)
    if store is not None and store != settings.store:
        settings = settings.model_copy(update={"store": store})
    return build_runtime(settings)


def operator() -> str:
    """Who runs the command (a key's ``created_by``)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in this environment
        return "operator"


def when(at: float | None) -> str:
    """``at`` as an ISO 8601 UTC time to the second, or ``-``."""
    if at is None:
        return "-"
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def print_table(rows: Sequence[Sequence[str]]) -> None:
    """Rows in columns as wide as their widest cell, the first row the heading."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
