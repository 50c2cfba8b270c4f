"""Indonesian roots (issue 22): one root's forms meet where Snowball cuts them apart."""

from __future__ import annotations

import pytest

from tanda.retrieval.analysis import stem
from tanda.retrieval.roots import id_roots


@pytest.mark.parametrize(
    ("forms", "root"),
    [
        (("mengesahkan", "disahkan", "pengesahan", "Sah"), "sah"),
        (("mengenal", "dikenal", "pengenalan"), "kenal"),
        (("menulis", "ditulis", "penulisnya"), "tulis"),
        (("memukul", "dipukul"), "pukul"),
        (("menyapu", "disapu"), "sapu"),
        (("kemerdekaan", "merdeka"), "merdeka"),
        (("didirikan", "pendirian"), "diri"),
    ],
)
def test_the_forms_of_one_root_share_it(forms: tuple[str, ...], root: str) -> None:
    assert all(root in id_roots(form) for form in forms), [id_roots(f) for f in forms]


def test_snowball_cuts_the_forms_of_one_root_apart() -> None:
    # Why the reader needs the roots: the index's stems of these forms never meet.
    assert len(set(stem(["mengesahkan", "disahkan"], "id"))) == 2


def test_a_word_is_its_own_root_and_no_root_is_shorter_than_three_letters() -> None:
    for word in ("sah", "merdeka", "perintah", "ibu", "dia"):
        assert word in id_roots(word)
    assert all(len(r) >= 3 for w in ("diam", "ada", "mengapa", "beri") for r in id_roots(w))
    # A consonant cluster no Indonesian word starts with is no root: "merdeka" is not me-rdeka.
    assert "rdeka" not in id_roots("merdeka")
