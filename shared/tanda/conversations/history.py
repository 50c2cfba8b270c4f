"""What the next turn sees of a conversation (V2-22): only what was verified.

Model history and conversation passages use only supported segments (plus framing and
from_conversation segments) of earlier v2 answers. An earlier answer with no verified statement
is quoted whole after a fixed note, so the model knows what the reader saw. Documents cited by
supported segments of the *previous* answer steer the follow-up: exactly one → it is read whole
(as is one selected document); several → the agent's search prefers them (the six newest:
:func:`tanda.agent.tools.newest_documents`). Earlier turns' documents do not count. The reader's
own view (``GET /conversations/{id}``) shows the full stored answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tanda.contract.common import Citation
from tanda.model_calls import ChatMessage
from tanda.passages import Passage
from tanda.records.conversations import MemoryItem, StoredMessage
from tanda.records.documents import LegalIdentity

NOTHING_VERIFIED_NOTE = (
    "Catatan: tidak ada pernyataan dalam jawaban sebelumnya ini yang terverifikasi; isinya bukan "
    "bukti. Jawaban itu dikutip utuh agar Anda tahu apa yang dilihat pembaca:"
)
KEPT_VERDICTS = {"supported", "from_conversation", None}


@dataclass
class History:
    messages: list[ChatMessage] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list)
    """Earlier turns as citable passages with keys ``C1, C2, …``."""
    preferred_documents: list[str] = field(default_factory=list)
    """What the previous answer's supported segments cited, in citation order (V2-22)."""
    read_whole: str | None = None
    """The one earlier document a follow-up reads whole."""
    truncated: bool = False
    exchanges_in_view: int = 0


def verified_text(message: StoredMessage) -> str | None:
    """The answer as the next turn may see it: kept segments only; ``None`` if nothing verified."""
    if message.fallback_reason is not None:
        return None
    if message.route == "query":
        return message.answer  # the v1 gate published only confirmed sentences
    if not any(s.get("verdict") == "supported" for s in message.segments):
        return None
    kept = [s["text"] for s in message.segments if s.get("verdict") in KEPT_VERDICTS]
    return " ".join(kept)


MEMORY_NOTE = "Dari percakapan sebelumnya (terverifikasi):"
MAX_MEMORIES = 5


class TurnHistory:
    """What the next turn sees of its conversation (V2-22), as a component: ``run`` builds the
    :class:`History` of a turn from the conversation's stored messages (oldest first), the
    documents the turn selected and the owner's memories of other conversations.

    ``max_chars``: the characters of earlier questions and shown answers the model history may
    hold (newest turns first; ``truncated`` when one did not fit)."""

    def __init__(self, *, max_chars: int = 6000) -> None:
        if max_chars < 0:
            raise ValueError(f"max_chars must not be negative, not {max_chars}")
        self.max_chars = max_chars

    def run(
        self,
        messages: Sequence[StoredMessage],
        *,
        selected_documents: Sequence[str] | None = None,
        memories: Sequence[MemoryItem] = (),
    ) -> History:
        max_chars = self.max_chars
        history = History()
        turns: list[tuple[str, str]] = []
        used = 0
        for message in reversed(messages):  # newest first, until the budget is spent
            answer = verified_text(message)
            shown = answer if answer is not None else f"{NOTHING_VERIFIED_NOTE}\n{message.answer}"
            cost = len(message.question) + len(shown)
            if used + cost > max_chars:
                history.truncated = True
                break
            used += cost
            turns.append((message.question, shown))
        turns.reverse()
        history.exchanges_in_view = len(turns)
        for question, shown in turns:
            history.messages.append(ChatMessage(role="user", content=question))
            history.messages.append(ChatMessage(role="assistant", content=shown))
        # Conversation passages: what the user said, and what earlier answers verified.
        in_view = messages[len(messages) - len(turns) :] if turns else []
        for message in in_view:
            for text in (message.question, verified_text(message)):
                if text:
                    key = f"C{len(history.passages) + 1}"
                    history.passages.append(
                        Passage(
                            key=key,
                            kind="conversation",
                            text=text,
                            citation=Citation(citation_key=key, source="conversation"),
                            identity=LegalIdentity(),
                        )
                    )
        # Long-term memory: the user's verified statements from other conversations.
        for item in list(memories)[:MAX_MEMORIES]:
            key = f"C{len(history.passages) + 1}"
            history.passages.append(
                Passage(
                    key=key,
                    kind="conversation",
                    text=f"{MEMORY_NOTE} {item.text}",
                    citation=Citation(citation_key=key, source="memory"),
                    identity=LegalIdentity(),
                )
            )
        # V2-22: only the previous answer steers the follow-up, by the documents its supported
        # segments cited (``cited_documents`` holds only those); earlier turns' do not count.
        documents = list(dict.fromkeys(messages[-1].cited_documents)) if messages else []
        history.preferred_documents = documents
        if selected_documents is not None and len(selected_documents) == 1:
            history.read_whole = selected_documents[0]
        elif len(documents) == 1:
            history.read_whole = documents[0]
        return history


def build_history(
    messages: Sequence[StoredMessage],
    *,
    max_chars: int = 6000,
    selected_documents: Sequence[str] | None = None,
    memories: Sequence[MemoryItem] = (),
) -> History:
    """:meth:`TurnHistory.run` with the default budget (or ``max_chars``)."""
    return TurnHistory(max_chars=max_chars).run(
        messages, selected_documents=selected_documents, memories=memories
    )
