"""What the next turn sees of its conversation (V2-22), as a component: ``TurnHistory.run``."""

from __future__ import annotations

from typing import Any

import pytest

from tanda.conversations.history import NOTHING_VERIFIED_NOTE, TurnHistory
from tanda.records.conversations import MemoryItem, StoredMessage

FACT = "Anggaran pendidikan 2023 adalah Rp 5 miliar."


def message(n: int, *, route: str = "query_v2", **fields: Any) -> StoredMessage:
    values: dict[str, Any] = {
        "message_id": f"m-{n}",
        "conversation_id": "c-1",
        "tenant_id": "acme",
        "route": route,
        "question": f"Pertanyaan {n}?",
        "answer": f"Berikut datanya. {FACT} Dugaan lain.",
        "trace_id": "t",
        "created_at": float(n),
        "segments": [
            {"text": "Berikut datanya.", "kind": "framing", "verdict": None},
            {"text": FACT, "kind": "fact", "verdict": "supported"},
            {"text": "Dugaan lain.", "kind": "fact", "verdict": "unsupported"},
        ],
    }
    return StoredMessage(**{**values, **fields})


def memory(n: int) -> MemoryItem:
    return MemoryItem(
        memory_id=f"x-{n}",
        tenant_id="acme",
        issuer="https://idp.partner.example",
        subject="u",
        text=f"Fakta {n}.",
        conversation_id="c-0",
        message_id="m",
        created_at=0.0,
    )


def test_a_history_with_a_negative_budget_is_refused_when_built() -> None:
    with pytest.raises(ValueError):
        TurnHistory(max_chars=-1)


def test_the_next_turn_sees_only_the_verified_part_of_an_earlier_v2_answer() -> None:
    history = TurnHistory().run([message(1)])
    assert [(m.role, m.content) for m in history.messages] == [
        ("user", "Pertanyaan 1?"),
        ("assistant", f"Berikut datanya. {FACT}"),  # the unsupported segment is left out
    ]
    assert [(p.key, p.text, p.citation.source) for p in history.passages] == [
        ("C1", "Pertanyaan 1?", "conversation"),
        ("C2", f"Berikut datanya. {FACT}", "conversation"),
    ]


def test_an_answer_with_nothing_verified_is_quoted_whole_after_the_note_and_is_not_citable() -> (
    None
):
    earlier = message(1, segments=[{"text": "Dugaan.", "kind": "fact", "verdict": "unsupported"}])
    history = TurnHistory().run([earlier])
    assert history.messages[1].content == f"{NOTHING_VERIFIED_NOTE}\n{earlier.answer}"
    assert [p.text for p in history.passages] == ["Pertanyaan 1?"]


def test_the_newest_turns_fill_the_budget_and_the_rest_is_truncated() -> None:
    turns = [message(n) for n in range(1, 4)]
    one_turn = len(turns[0].question) + len(f"Berikut datanya. {FACT}")
    history = TurnHistory(max_chars=2 * one_turn).run(turns)
    assert history.truncated and history.exchanges_in_view == 2
    assert [m.content for m in history.messages if m.role == "user"] == [
        "Pertanyaan 2?",
        "Pertanyaan 3?",
    ]


def test_memories_of_other_conversations_are_citable_up_to_five() -> None:
    history = TurnHistory().run([], memories=[memory(n) for n in range(8)])
    assert [p.citation.source for p in history.passages] == ["memory"] * 5
    assert history.passages[0].key == "C1" and history.passages[0].text.endswith("Fakta 0.")


@pytest.mark.parametrize(
    ("cited", "selected", "read_whole", "preferred"),
    [
        # The previous answer cited one document: read it whole.
        ([["d-1"]], None, "d-1", ["d-1"]),
        # Turn 1 cited A and B, turn 2 (the previous answer) only B: B is read whole (issue 23).
        ([["d-A", "d-B"], ["d-B"]], None, "d-B", ["d-B"]),
        # The previous answer cited several: search prefers them; earlier turns' do not count.
        ([["d-9"], ["d-1", "d-2"]], None, None, ["d-1", "d-2"]),
        # The previous answer cited nothing verified: an earlier turn's document is not read.
        ([["d-1"], []], None, None, []),
        # One selected document is read whole, whatever the answers cited.
        ([["d-1"], ["d-2", "d-3"]], ["d-9"], "d-9", ["d-2", "d-3"]),
        # Several selected documents: none is read whole on their account.
        ([["d-1", "d-2"]], ["d-1", "d-2"], None, ["d-1", "d-2"]),
    ],
)
def test_only_the_documents_the_previous_answer_relied_on_steer_the_next_turn(
    cited: list[list[str]], selected: list[str] | None, read_whole: str | None, preferred: list[str]
) -> None:
    # Given turns whose supported segments cited these documents (V2-22)
    turns = [message(n, cited_documents=docs) for n, docs in enumerate(cited, start=1)]
    # When the next turn's history is built
    history = TurnHistory().run(turns, selected_documents=selected)
    # Then only the previous answer's documents (or one selected document) steer it
    assert history.read_whole == read_whole
    assert history.preferred_documents == preferred
