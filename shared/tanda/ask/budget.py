"""ASK-10: the output budget is chosen per question.

A narrow question ("gönderici kim?") and a request to list every item ("tüm kalemleri listele")
do not share one ceiling: a question that asks for a list, a breakdown or every item gets the
larger budget. The cues are words in Turkish, Indonesian and English; Turkish and Indonesian words
are matched by their stem, so suffixes ("kalemleri", "listesini", "rinciannya") count too.
"""

from __future__ import annotations

from tanda.retrieval.question import QuestionAnalysis, as_question, asks_for_a_list

__all__ = ["asks_for_a_list", "output_budget"]


def output_budget(question: str | QuestionAnalysis, *, narrow_tokens: int, list_tokens: int) -> int:
    """The ``max_tokens`` of this question's synthesis call (and of its one continuation): the
    larger budget when the question asks for a list (read once, ``QuestionAnalysis.asks_list``)."""
    return list_tokens if as_question(question).asks_list else narrow_tokens
