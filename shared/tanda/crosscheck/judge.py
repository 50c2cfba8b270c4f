"""The cross-check judge (XC-3, XC-4): each candidate pair is judged alone by the ``ChatModel``,
role ``xc_judge`` — ``contradiction``, ``support`` or ``none`` with an explanation in the job's
language — at most ``concurrency`` calls at once.

Nothing the model says is trusted beyond its verdict and explanation: it must name the two claims
it was shown by their ids (either order), and anything else — other ids, an unreadable reply, a
finding without an explanation — is dropped and counted. A call that fails or times out is
counted ``failed``; it never fails the other pairs. Statements, quotes and pages of a finding come
from the server's records (:mod:`tanda.crosscheck.findings`), never from the reply.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import ValidationError

from tanda.crosscheck.inputs import XcClaim
from tanda.lang import DEFAULT_ANSWER_LANG, LANGUAGE_NAMES, normalize_lang
from tanda.model_calls import (
    ChatMessage,
    ChatModel,
    ChatRequest,
    ModelError,
    ModelRole,
    XcJudgeOutput,
)
from tanda.prompts import prompt

JudgeVerdict = Literal["contradiction", "support", "none", "failed", "dropped"]
XC_JUDGE_SCHEMA: Final = XcJudgeOutput.model_json_schema()
MAX_EXPLANATION_CHARS: Final = 300
"""An explanation is cut here: a job's findings travel through one 256 KB state machine state."""
JUDGE_TIMEOUT_S: Final = 60.0


@dataclass(frozen=True, slots=True)
class JudgedPair:
    a: XcClaim
    b: XcClaim
    verdict: JudgeVerdict
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class CrossCheckJudge:
    model: ChatModel
    labels: Mapping[str, str]
    """Document id → label, as the judge is shown each claim's document."""
    concurrency: int = 4
    scenario: str | None = None

    def run(self, pairs: Sequence[tuple[XcClaim, XcClaim]], lang: str) -> list[JudgedPair]:
        """One verdict per pair, in the order of ``pairs``."""
        if not pairs:
            return []
        workers = max(1, min(self.concurrency, len(pairs)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tanda-xc-judge") as pool:
            return list(pool.map(lambda pair: self.judge(pair[0], pair[1], lang), pairs))

    def judge(self, a: XcClaim, b: XcClaim, lang: str) -> JudgedPair:
        try:
            response = self.model.complete(self.request(a, b, lang))
        except ModelError:
            return JudgedPair(a, b, "failed")
        return read_verdict(a, b, response.content)

    def request(self, a: XcClaim, b: XcClaim, lang: str) -> ChatRequest:
        language = LANGUAGE_NAMES[normalize_lang(lang) or DEFAULT_ANSWER_LANG]
        shown = "\n\n".join(
            f"Claim {name} (id {claim.node_id}, document: {self._label(claim)})\n"
            f"Statement: {claim.statement}\nQuote: {claim.quote}"
            for name, claim in (("A", a), ("B", b))
        )
        return ChatRequest(
            role=ModelRole.xc_judge,
            messages=[
                ChatMessage(role="system", content=prompt("xc_judge")),
                ChatMessage(
                    role="user", content=f"{shown}\n\nWrite the explanation in {language}."
                ),
            ],
            json_schema=XC_JUDGE_SCHEMA,
            schema_name="xc_verdict",
            timeout_s=JUDGE_TIMEOUT_S,
            items=[{"lang": lang, "a": self._item(a), "b": self._item(b)}],
            scenario=self.scenario,
        )

    def _label(self, claim: XcClaim) -> str:
        return self.labels.get(claim.document_id, claim.document_id)

    def _item(self, claim: XcClaim) -> dict[str, Any]:
        return {
            "id": claim.node_id,
            "statement": claim.statement,
            "quote": claim.quote,
            "document": self._label(claim),
        }


def read_verdict(a: XcClaim, b: XcClaim, content: str | None) -> JudgedPair:
    """The pair's verdict from a reply; XC-3: dropped unless it names exactly the pair's two
    claims (their server ids) and explains a finding."""
    try:
        output = XcJudgeOutput.model_validate_json(content or "")
    except (ValidationError, json.JSONDecodeError):
        return JudgedPair(a, b, "dropped")
    if {output.a.strip(), output.b.strip()} != {a.node_id, b.node_id}:
        return JudgedPair(a, b, "dropped")
    explanation = " ".join(output.explanation.split())[:MAX_EXPLANATION_CHARS]
    if output.verdict == "none":
        return JudgedPair(a, b, "none")
    if not explanation:
        return JudgedPair(a, b, "dropped")
    return JudgedPair(a, b, output.verdict, explanation)
