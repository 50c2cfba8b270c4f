"""A question with a one-letter typo in its key word (issue 22, V2-19), through the CLI on both
embedded lexical engines: ``tanda search`` finds the passage the user meant and ``tanda ask``
answers with it, where they ended in "nothing matched" (IDK-MRC's "Apa itu stalakmit?" and
"Apa yang dimaksud dengan homeostatis ?")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tanda.cli import main
from tanda.settings import load_settings
from tests.homes import ask_json, supported

pytestmark = pytest.mark.integration

STALAGMIT = "Stalagmit adalah pembentukan gua secara vertikal (tumbuh dari bawah ke atas)."
HOMEOSTASIS = (
    "Homeostasis merujuk pada ketahanan atau mekanisme pengaturan lingkungan kesetimbangan "
    "dinamis dalam badan organisme yang konstan."
)
DOCUMENTS = {
    "gua.txt": f"{STALAGMIT} Stalagmit terbentuk dari tetesan air yang mengandung kapur.",
    "tubuh.txt": f"{HOMEOSTASIS} Tubuh menjaga suhu dan kadar air dengan cara ini.",
    "pajak.txt": "Pajak daerah adalah kontribusi wajib kepada daerah yang terutang oleh badan.",
}


@pytest.fixture(params=["tantivy", "sqlite"])
def tenant(
    request: pytest.FixtureRequest,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Iterator[str]:
    """The documents in tenant ``demo`` of a home on the given lexical engine; another tenant
    holds a neighbour of the typo, more often."""
    monkeypatch.setenv("TANDA_LEXICAL_ENGINE", request.param)
    load_settings.cache_clear()
    docs, other = tmp_path / "docs", tmp_path / "other"
    docs.mkdir()
    other.mkdir()
    for name, text in DOCUMENTS.items():
        (docs / name).write_text(text, encoding="utf-8")
    for n in range(3):
        (other / f"{n}.txt").write_text(f"Stalaknit nomor {n} ada di gua.", encoding="utf-8")
    assert main(["ingest", str(docs), "--tenant", "demo", "--no-progress"]) == 0
    assert main(["ingest", str(other), "--tenant", "lain", "--no-progress"]) == 0
    assert (home / "index.sqlite.tantivy").is_dir() == (request.param == "tantivy")
    capsys.readouterr()
    yield "demo"
    load_settings.cache_clear()


def test_search_finds_the_passage_of_the_word_one_letter_off(
    tenant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "stalakmit", "--tenant", tenant]) == 0
    out = capsys.readouterr().out
    # Only the Stalagmit passage: the other tenant's more frequent "stalaknit" counts for nothing.
    assert out.lstrip().startswith("1. gua ") and "2. " not in out
    assert STALAGMIT in out


def test_ask_answers_a_mistyped_definition_question_with_the_definition(
    tenant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert supported(ask_json(capsys, "Apa itu stalakmit?"))[0] == STALAGMIT
    assert supported(ask_json(capsys, "Apa yang dimaksud dengan homeostatis ?"))[0] == HOMEOSTASIS
