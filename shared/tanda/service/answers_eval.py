"""Does an answer answer? The use case behind ``tanda eval answers`` (issue 22; docs/evaluation.md).

An evaluation set — a SQuAD 2.0 file (paragraphs with answerable and unanswerable questions, e.g.
IDK-MRC's ``idk_mrc_valid.json``) or a BEIR folder whose ``queries.jsonl`` carry ``answers``
(tydiqa_id, xquad_tr) — is ingested into a throwaway home through the same ingest the
``tanda ingest`` command runs (one document per paragraph), then every question (or ``limit`` of
each kind, seeded) is asked through the same use case the route runs, in-process:
``/query/v2`` (:func:`tanda.service.answer_v2.answer_v2`) or ``/v1/ask``
(:func:`tanda.service.ask_v1.ask_v1`). Each answer is reduced to an :class:`AnswerRecord` — the
statements a reader sees as verified, in answer order, and whether the answer says the documents
do not answer (:func:`tanda.not_found.says_not_found`) — and :func:`score_records` turns them into
the figures:

- ``answer_in_supported`` — answerable questions with a gold answer string in a verified statement
  (``/query/v2``: a ``supported`` claim; ``/v1/ask``: a sentence citing a shown source);
- ``answer_in_first`` — the same, in the first such statement;
- ``held_back_answerable`` — answerable questions answered with the not-found notice;
- ``verified_non_answer`` — unanswerable questions that got a verified statement and no notice;
- ``held_back`` — unanswerable questions answered with the notice;
- ``errors`` — questions that ended in an error; ``no_match`` — those that ended in the 404 of
  V2-19 because nothing in the tenant matched the question (counted as held back: the caller was
  told nothing matched, and nothing was shown as an answer);
- ``p50_ms`` / ``p95_ms`` — latency of one question through the use case.

An answer that carries the not-found notice never counts as answering, whatever else it shows.
Gold strings and statements are compared case-folded with spacing collapsed.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tanda.not_found import says_not_found
from tanda.proof import statements_from_markers
from tanda.service.retrieval_eval import percentile

if TYPE_CHECKING:
    from tanda.contract.query import QueryV2Response
    from tanda.contract.v1_ask import V1AskResponse
    from tanda.service.runtime import Runtime

Route = Literal["v2", "v1"]
ROUTES: tuple[Route, ...] = ("v2", "v1")
EVAL_TENANT = "eval"
SET_FILE = "answer_set.jsonl"
"""The set's documents as one JSONL file in the throwaway home: what ``tanda ingest`` reads."""


class AnswerSetError(ValueError):
    """The file or folder is not an answer set this command reads."""


@dataclass(frozen=True)
class EvalQuestion:
    question_id: str
    text: str
    answers: tuple[str, ...]
    """Gold answer strings; empty for an unanswerable question."""

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


@dataclass(frozen=True)
class AnswerSet:
    name: str
    documents: list[tuple[str, str, str]]
    """(document id, title, text) per paragraph, in file order."""
    questions: list[EvalQuestion]


# -- reading a set ------------------------------------------------------------------------------


def load_answer_set(path: Path) -> AnswerSet:
    """A SQuAD 2.0 file (``{"data": [{"title", "paragraphs": [...]}]}``, or a bare list of
    paragraphs ``{"context", "qas"}``) or a BEIR folder (``corpus.jsonl`` and a
    ``queries.jsonl`` whose lines carry ``answers``)."""
    if path.is_dir():
        return _load_beir(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise AnswerSetError(f"cannot read {path}: {error}") from error
    except ValueError as error:
        raise AnswerSetError(f"{path} is not JSON: {error}") from error
    return _load_squad(path.stem, data)


def _load_squad(name: str, data: object) -> AnswerSet:
    articles: list[tuple[str, list[Any]]]
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        articles = [
            (str(a.get("title") or ""), list(a.get("paragraphs") or []))
            for a in data["data"]
            if isinstance(a, dict)
        ]
    elif isinstance(data, list):
        articles = [("", data)]
    else:
        raise AnswerSetError("expected SQuAD 2.0: {data: [{paragraphs}]} or a list of paragraphs")
    documents: list[tuple[str, str, str]] = []
    questions: list[EvalQuestion] = []
    for title, paragraphs in articles:
        for paragraph in paragraphs:
            if not isinstance(paragraph, dict) or not str(paragraph.get("context", "")).strip():
                continue
            doc_id = f"p{len(documents) + 1}"
            documents.append((doc_id, title.replace("_", " "), str(paragraph["context"])))
            for qa in paragraph.get("qas") or []:
                text = str(qa.get("question", "")).strip()
                if not text:
                    continue
                answers: tuple[str, ...] = ()
                if not qa.get("is_impossible", False):
                    answers = _gold(a.get("text") for a in qa.get("answers") or [])
                    if not answers:
                        continue  # answerable without a gold string: nothing to score
                qid = str(qa.get("id") or f"{doc_id}-q{len(questions) + 1}")
                questions.append(EvalQuestion(qid, text, answers))
    if not documents or not questions:
        raise AnswerSetError("no paragraph with a question in it")
    return AnswerSet(name, documents, questions)


def _load_beir(folder: Path) -> AnswerSet:
    corpus_file, queries_file = folder / "corpus.jsonl", folder / "queries.jsonl"
    if not corpus_file.is_file() or not queries_file.is_file():
        raise AnswerSetError(f"{folder}: a BEIR folder needs corpus.jsonl and queries.jsonl")
    documents = [
        (str(row["_id"]), str(row.get("title") or ""), str(row.get("text") or ""))
        for row in _jsonl(corpus_file)
    ]
    questions = [
        EvalQuestion(str(row["_id"]), str(row["text"]).strip(), _gold(row.get("answers") or []))
        for row in _jsonl(queries_file)
        if str(row.get("text", "")).strip()
    ]
    questions = [q for q in questions if q.answerable]
    if not documents or not questions:
        raise AnswerSetError(f"{folder}: no query carries `answers`")
    return AnswerSet(folder.name, documents, questions)


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    try:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as error:
                    raise AnswerSetError(f"{path}:{number}: not JSON ({error})") from error
                if not isinstance(row, dict) or "_id" not in row:
                    raise AnswerSetError(f"{path}:{number}: expected an object with `_id`")
                yield row
    except OSError as error:
        raise AnswerSetError(f"cannot read {path}: {error}") from error


def _gold(texts: Iterable[object]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t.strip() for t in texts if isinstance(t, str) and t.strip()))


def pick_questions(
    questions: Sequence[EvalQuestion], limit: int | None, *, seed: int = 0
) -> list[EvalQuestion]:
    """Every question, or at most ``limit`` of each kind (answerable, unanswerable), drawn with
    ``seed``, in the set's order."""
    if limit is None:
        return list(questions)
    chosen: set[int] = set()
    rng = random.Random(seed)  # noqa: S311 — a reproducible draw, not a secret
    for answerable in (True, False):
        positions = [i for i, q in enumerate(questions) if q.answerable is answerable]
        chosen.update(rng.sample(positions, min(limit, len(positions))))
    return [q for i, q in enumerate(questions) if i in chosen]


# -- one answer, as a reader sees it ------------------------------------------------------------


@dataclass(frozen=True)
class AnswerRecord:
    question: EvalQuestion
    verified: tuple[str, ...] = ()
    """The statements shown as verified, in answer order."""
    not_found: bool = False
    """The answer says the documents do not answer (or nothing matched: ``no_match``)."""
    no_match: bool = False
    error: str | None = None
    latency_ms: float = 0.0
    answer: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.question.question_id,
            "question": self.question.text,
            "answers": list(self.question.answers),
            "answer": self.answer,
            "verified": list(self.verified),
            "not_found": self.not_found,
            "no_match": self.no_match,
            "error": self.error,
            "latency_ms": round(self.latency_ms, 1),
        }


def v2_record(question: EvalQuestion, response: QueryV2Response, latency_ms: float) -> AnswerRecord:
    """``/query/v2``: the supported claims, in answer order."""
    from tanda.contract.common import Verdict

    verified = tuple(c.text for c in response.claims if c.verdict is Verdict.supported)
    return AnswerRecord(
        question,
        verified=verified,
        not_found=says_not_found(response.answer),
        latency_ms=latency_ms,
        answer=response.answer,
    )


_MARKER = re.compile(r"\[S(\d+)\]")


def answer_sentences(answer: str) -> list[str]:
    """The answer's sentences as its proof reads them (:func:`tanda.proof.statements_from_markers`:
    tanda's one sentence splitter), each with the markers that close it."""
    return [answer[s.start : s.end] for s in statements_from_markers(answer)]


def v1_record(question: EvalQuestion, response: V1AskResponse, latency_ms: float) -> AnswerRecord:
    """``/v1/ask``: the answer's sentences that cite a source the response lists, in answer
    order, without their ``[S#]`` markers."""
    cited = {c.source_no for c in response.citations}
    answer = response.answer
    verified = [
        " ".join(_MARKER.sub(" ", answer[s.start : s.end]).split())
        for s in statements_from_markers(answer)
        if cited.intersection(s.cites)
    ]
    return AnswerRecord(
        question,
        verified=tuple(verified),
        not_found=says_not_found(response.answer),
        latency_ms=latency_ms,
        answer=response.answer,
    )


# -- the figures --------------------------------------------------------------------------------


def _folded(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def holds_answer(statement: str, answers: Sequence[str]) -> bool:
    """A gold answer string occurs in ``statement`` (case-folded, spacing collapsed)."""
    folded = _folded(statement)
    return any(_folded(answer) in folded for answer in answers if answer.strip())


@dataclass(frozen=True)
class AnswerScores:
    answerable: int
    unanswerable: int
    answer_in_supported: float | None
    answer_in_first: float | None
    held_back_answerable: float | None
    verified_non_answer: float | None
    held_back: float | None
    errors: int
    no_match: int
    p50_ms: float
    p95_ms: float

    def as_json(self) -> dict[str, Any]:
        def share(value: float | None) -> float | None:
            return None if value is None else round(value, 4)

        return {
            "answerable": self.answerable,
            "unanswerable": self.unanswerable,
            "answer_in_supported": share(self.answer_in_supported),
            "answer_in_first": share(self.answer_in_first),
            "held_back_answerable": share(self.held_back_answerable),
            "verified_non_answer": share(self.verified_non_answer),
            "held_back": share(self.held_back),
            "errors": self.errors,
            "no_match": self.no_match,
            "p50_ms": round(self.p50_ms, 1),
            "p95_ms": round(self.p95_ms, 1),
        }


def score_records(records: Sequence[AnswerRecord]) -> AnswerScores:
    """The figures of the module docstring over ``records``; a share is ``None`` when it has no
    question to count (a BEIR set has no unanswerable question)."""
    answerable = [r for r in records if r.question.answerable]
    unanswerable = [r for r in records if not r.question.answerable]

    def share(hits: int, total: int) -> float | None:
        return hits / total if total else None

    def answered(r: AnswerRecord) -> bool:
        return r.error is None and not r.not_found

    in_supported = sum(
        1
        for r in answerable
        if answered(r) and any(holds_answer(s, r.question.answers) for s in r.verified)
    )
    in_first = sum(
        1
        for r in answerable
        if answered(r) and r.verified and holds_answer(r.verified[0], r.question.answers)
    )
    latencies = [r.latency_ms for r in records if r.error is None]
    return AnswerScores(
        answerable=len(answerable),
        unanswerable=len(unanswerable),
        answer_in_supported=share(in_supported, len(answerable)),
        answer_in_first=share(in_first, len(answerable)),
        held_back_answerable=share(
            sum(1 for r in answerable if r.error is None and r.not_found), len(answerable)
        ),
        verified_non_answer=share(
            sum(1 for r in unanswerable if answered(r) and r.verified), len(unanswerable)
        ),
        held_back=share(
            sum(1 for r in unanswerable if r.error is None and r.not_found), len(unanswerable)
        ),
        errors=sum(1 for r in records if r.error is not None),
        no_match=sum(1 for r in records if r.no_match),
        p50_ms=percentile(latencies, 50),
        p95_ms=percentile(latencies, 95),
    )


# -- running a set ------------------------------------------------------------------------------


@dataclass
class AnswerRun:
    set_name: str
    route: Route
    model: str
    documents: int
    records: list[AnswerRecord] = field(default_factory=list)
    ingest_s: float = 0.0

    def report(self) -> dict[str, Any]:
        return {
            "set": self.set_name,
            "route": self.route,
            "model": self.model,
            "documents": self.documents,
            "questions": len(self.records),
            "ingest_s": round(self.ingest_s, 2),
            **score_records(self.records).as_json(),
        }


@contextmanager
def throwaway_home() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="tanda-eval-answers-") as tmp:
        yield Path(tmp)


def ingest_set(runtime: Runtime, answer_set: AnswerSet, home: Path, *, tenant: str) -> float:
    """Every paragraph of the set as one document of ``tenant``, through the ingest that
    ``tanda ingest`` runs (structure layers as the settings say); the seconds it took."""
    from tanda.service.ingest import StructureLayers, ingest_paths

    source = home / SET_FILE
    with source.open("w", encoding="utf-8") as out:
        for doc_id, title, text in answer_set.documents:
            row = {"document_id": doc_id, "title": title or None, "text": text}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    layers = StructureLayers(model=runtime.model) if runtime.settings.structure_layers else None
    started = time.perf_counter()
    ingest_paths(runtime.search_index, runtime.embedder, [source], tenant=tenant, layers=layers)
    return time.perf_counter() - started


Ask = Callable[[EvalQuestion], AnswerRecord]


def error_record(question: EvalQuestion, code: str, latency_ms: float) -> AnswerRecord:
    """A question the route answered with an error ``code``. The 404 of V2-19 (nothing matched)
    is a held-back answer; any other error is an error."""
    if code == "no_readable_result":
        return AnswerRecord(question, not_found=True, no_match=True, latency_ms=latency_ms)
    return AnswerRecord(question, error=code, latency_ms=latency_ms)


def asker(runtime: Runtime, route: Route, *, tenant: str) -> Ask:
    """One question through the route's use case, as a reader of the response sees it; an
    error is recorded by ``error_record``."""
    from tanda.auth import Principal
    from tanda.errors import TandaError

    if route == "v2":
        from tanda.contract import QueryV2Request
        from tanda.service.answer_v2 import answer_v2

        user = Principal(tenant_id=tenant, partner_id="tanda-eval", subject="tanda-eval")

        def ask_v2(question: EvalQuestion) -> AnswerRecord:
            started = time.perf_counter()
            try:
                response = answer_v2(runtime, user, QueryV2Request(query=question.text))
            except TandaError as error:
                return error_record(question, error.code, (time.perf_counter() - started) * 1000)
            return v2_record(question, response, (time.perf_counter() - started) * 1000)

        return ask_v2

    from tanda.contract.v1_ask import V1AskRequest
    from tanda.service.ask_v1 import ask_v1

    # A test key: metered, never charged (ASK-12); the eval's own home has no throttle to share.
    key = Principal(tenant_id=tenant, partner_id="tanda-eval", subject="tanda-eval", is_test=True)

    def ask_on_v1(question: EvalQuestion) -> AnswerRecord:
        started = time.perf_counter()
        try:
            response = ask_v1(runtime, key, V1AskRequest(query=question.text))
        except TandaError as error:
            return error_record(question, error.code, (time.perf_counter() - started) * 1000)
        return v1_record(question, response, (time.perf_counter() - started) * 1000)

    return ask_on_v1


def run_answers(
    runtime: Runtime,
    answer_set: AnswerSet,
    questions: Sequence[EvalQuestion],
    *,
    route: Route,
    home: Path,
    tenant: str = EVAL_TENANT,
    on_answer: Callable[[AnswerRecord], None] | None = None,
) -> AnswerRun:
    """Ingest ``answer_set`` into ``runtime`` (whose home is ``home``), then ask ``questions``
    one by one on ``route``. An unexpected exception of one question is that question's error,
    never the end of the run."""
    run = AnswerRun(answer_set.name, route, runtime.model.name, len(answer_set.documents))
    run.ingest_s = ingest_set(runtime, answer_set, home, tenant=tenant)
    ask = asker(runtime, route, tenant=tenant)
    for question in questions:
        try:
            record = ask(question)
        except Exception as error:  # one question's failure is a figure, not the end of the run
            record = AnswerRecord(question, error=type(error).__name__)
        run.records.append(record)
        if on_answer is not None:
            on_answer(record)
    return run
