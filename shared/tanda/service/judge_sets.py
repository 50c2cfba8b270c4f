"""Public judge test sets → statements with the passages they cite and a gold label (issue 17).

Three formats, recognised by the fields of their first record (docs/evaluation.md):

- **IndoNLI** (JSONL): ``premise``, ``hypothesis``, ``label`` ``e``/``n``/``c``. The hypothesis is
  the statement, the premise its one passage; supported iff ``e`` (entailment).
- **WiCE** (JSONL): ``claim``, ``evidence`` (the sentences of the cited web page), ``label``
  ``supported``/``partially_supported``/``not_supported``. Supported iff ``supported``: the judge is
  strict, a claim only partly borne out is not supported. The claim's article title and section
  are what the reader sees around it (its heading, V2-07).
- **SummEdits** (JSON array): ``doc``, ``summary``, ``label`` 1 (consistent) / 0, ``edit_types``.

Long texts become passages the way ingest cuts a plain-text document (paragraphs, then sentences,
about 1,200 characters each), and the statement cites every one of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tanda.retrieval.ingest.chunking import chunk_blocks
from tanda.retrieval.ingest.readers import parse_plain_text

SetFormat = Literal["indonli", "wice", "summedits"]

EDIT_TYPES = (
    "entity_modification",
    "antonym_swap",
    "hallucinated_fact_insertion",
    "negation_insertion_removal",
)
"""The edits SummEdits made to turn a consistent summary into an inconsistent one."""


class JudgeSetError(ValueError):
    """A file that is not one of the three formats, or a record that breaks its format."""


@dataclass(frozen=True)
class JudgeCase:
    """One statement, the passages it cites, and whether they support it (the gold label)."""

    case_id: str
    statement: str
    passages: tuple[str, ...]
    supported: bool
    label: str
    """The set's own label, for the confusion table (``e``, ``partially_supported``, ``0``…)."""
    edit_types: tuple[str, ...] = ()
    heading: str | None = None
    """What the reader sees above the statement (WiCE: the article title and section)."""


@dataclass(frozen=True)
class JudgeSet:
    name: str
    format: SetFormat
    cases: list[JudgeCase]


def passages_of(text: str) -> tuple[str, ...]:
    """A document's text → its passages, cut as ``tanda ingest`` cuts plain text."""
    parsed = parse_plain_text(text, fallback_title=None)
    return tuple(draft.text for draft in chunk_blocks(parsed.blocks) if draft.text.strip())


def set_files(path: Path) -> list[Path]:
    """A set file, or every ``*.json``/``*.jsonl`` of a folder (sorted by name)."""
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix in (".json", ".jsonl") and p.is_file())
    return [path]


def load_judge_set(path: Path, *, limit: int | None = None) -> JudgeSet:
    """Read one set file; ``limit`` keeps its first records. Raises ``JudgeSetError`` or
    ``OSError``."""
    records = list(_records(path))
    if not records:
        raise JudgeSetError(f"{path}: no records")
    kind = _format_of(path, records[0][1])
    if limit is not None:
        records = records[:limit]
    reader = {"indonli": _indonli, "wice": _wice, "summedits": _summedits}[kind]
    cases: list[JudgeCase] = []
    for where, record in records:
        try:
            cases.append(reader(record))
        except (KeyError, TypeError, ValueError) as error:
            raise JudgeSetError(f"{path}: {where}: not a {kind} record ({error})") from None
    return JudgeSet(name=path.stem, format=kind, cases=cases)


def _records(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, record) for a JSON array file or a JSON Lines file."""
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as error:
            raise JudgeSetError(f"{path}: not JSON ({error.msg}, line {error.lineno})") from None
        for number, row in enumerate(rows, start=1):
            yield f"record {number}", _object(path, f"record {number}", row)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise JudgeSetError(f"{path}: line {number}: not JSON ({error.msg})") from None
        yield f"line {number}", _object(path, f"line {number}", row)


def _object(path: Path, where: str, row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise JudgeSetError(f"{path}: {where}: expected a JSON object")
    return row


def _format_of(path: Path, first: dict[str, Any]) -> SetFormat:
    keys = set(first)
    if {"premise", "hypothesis", "label"} <= keys:
        return "indonli"
    if {"claim", "evidence", "label"} <= keys:
        return "wice"
    if {"doc", "summary", "label"} <= keys:
        return "summedits"
    raise JudgeSetError(
        f"{path}: unknown format (fields {sorted(keys)}); expected IndoNLI "
        "(premise, hypothesis, label), WiCE (claim, evidence, label) or SummEdits "
        "(doc, summary, label)"
    )


def _text(record: dict[str, Any], field: str) -> str:
    value = record[field]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"`{field}` must be a non-empty string")
    return value


def _label(record: dict[str, Any], allowed: Sequence[str]) -> str:
    label = str(record["label"])
    if label not in allowed:
        raise ValueError(f"`label` {label!r} is not one of {', '.join(allowed)}")
    return label


def _indonli(record: dict[str, Any]) -> JudgeCase:
    label = _label(record, ("e", "n", "c"))
    return JudgeCase(
        case_id=str(record.get("pair_id", "")),
        statement=_text(record, "hypothesis"),
        passages=passages_of(_text(record, "premise")),
        supported=label == "e",
        label=label,
    )


def _wice(record: dict[str, Any]) -> JudgeCase:
    label = _label(record, ("supported", "partially_supported", "not_supported"))
    evidence = record["evidence"]
    if not isinstance(evidence, list) or not all(isinstance(s, str) for s in evidence):
        raise ValueError("`evidence` must be a list of sentences")
    meta = record.get("meta") or {}
    heading = " > ".join(
        str(part).strip() for part in (meta.get("claim_title"), meta.get("claim_section")) if part
    )
    # One evidence sentence per paragraph, so a passage never cuts one in two.
    passages = passages_of("\n\n".join(s for s in evidence if s.strip()))
    if not passages:
        raise ValueError("`evidence` has no text")
    return JudgeCase(
        case_id=str(meta.get("id", "")),
        statement=_text(record, "claim"),
        passages=passages,
        supported=label == "supported",
        label=label,
        heading=heading or None,
    )


def _summedits(record: dict[str, Any]) -> JudgeCase:
    label = _label(record, ("0", "1"))
    edits = tuple(str(e) for e in record.get("edit_types") or ())
    return JudgeCase(
        case_id=str(record.get("id", "")),
        statement=_text(record, "summary"),
        passages=passages_of(_text(record, "doc")),
        supported=label == "1",
        label=label,
        edit_types=edits,
    )
