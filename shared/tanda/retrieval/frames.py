"""The words that frame a question in the languages tanda reads (issue 22): what asks, not what
is asked about (``kapan``, ``bagaimana``, ``nedir``, ``which``). Data only, so the query-term
correction (:mod:`tanda.retrieval.spelling`, on every engine's search path) can tell a question
word without loading the question's whole analysis (:mod:`tanda.retrieval.question`)."""

from __future__ import annotations

from typing import Final

from tanda.lang import Lang, fold


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that frame a question without being about its subject: never focus terms.
FRAME_WORDS: Final[dict[Lang, frozenset[str]]] = {
    "id": _words(
        """
        apa apakah siapa siapakah kapan kapankah berapa berapakah keberapa keberapakah mana
        manakah dimana dimanakah
        darimana darimanakah kemana bagaimana bagaimanakah mengapa kenapa bilamana seberapa
        saja maksud dimaksud dimaksudkan pengertian definisi arti makna disebut dinamakan sebutkan
        jelaskan tuliskan kepanjangan singkatan
        """
    ),
    "tr": _words(
        """
        ne neyi neye neyin neyle neyden neyde neden niçin niye nasıl nedir neydi nelerdir
        neresi neresidir nerede nereye nereden
        nereli hangi hangisi hangileri kim kimdir kimdi kimin kime kimi kimler kimleri kaç
        kaçtır
        zaman tanımı anlamı demek demektir denir
        """
    ),
    "en": _words(
        """
        what which who whom whose when where why how meant mean means meaning define
        definition
        """
    ),
}
FOLDED_FRAMES: Final = {
    lang: frozenset(fold(w) for w in words) for lang, words in FRAME_WORDS.items()
}
ALL_FRAMES: Final = frozenset().union(*FOLDED_FRAMES.values())


def frames_a_question(word: str) -> bool:
    """``word`` (folded, as the index analyses it) is a word that frames a question in a
    language tanda reads (``kapan``, ``bagaimana``, ``nedir``, ``which``): never what the
    documents are asked about."""
    return fold(word) in ALL_FRAMES
