"""``tanda openapi [--out PATH]``: write the document generated from the contract models."""

from __future__ import annotations

from pathlib import Path

from tanda.api.app import render_openapi


def write_openapi(out: str | Path) -> int:
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_openapi(), encoding="utf-8")
    print(f"wrote {path}")
    return 0
