"""docs/settings.md lists every setting as the model defines it."""

from pathlib import Path

from tanda.settings import Settings, settings_table

DOC = Path(__file__).parents[2] / "docs" / "settings.md"


def test_settings_doc_carries_the_current_table() -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert settings_table() in doc, "regenerate the table in docs/settings.md"


def test_settings_need_no_configuration_and_are_not_read_at_import(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TANDA_PORT", "9999")
    assert Settings().port == 9999
    monkeypatch.delenv("TANDA_PORT")
    assert Settings().model == "offline"
