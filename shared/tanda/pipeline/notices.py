"""Fixed notice texts published with a refusal (V2-17, V2-18, V2-20; CV-2 for the v1 gate).
System copy, never a model's or a server's message."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tanda.contract.common import FallbackReason

if TYPE_CHECKING:
    from tanda.annotate.outcome import Annotation

NOTICES: dict[FallbackReason, str] = {
    FallbackReason.policy_blocked: (
        "Jawaban tidak dapat ditampilkan karena tidak sesuai dengan kebijakan penggunaan layanan."
    ),
    FallbackReason.query_budget_exhausted: (
        "Batas panggilan model untuk pertanyaan ini habis sebelum jawaban selesai disusun. "
        "Silakan ajukan pertanyaan yang lebih sempit."
    ),
    FallbackReason.model_timeout: (
        "Model tidak selesai menjawab dalam batas waktu permintaan. Silakan coba lagi."
    ),
    FallbackReason.context_budget_exhausted: (
        "Bahan sumber yang dibutuhkan pertanyaan ini tidak muat dalam konteks model, sehingga "
        "jawaban dihentikan sebelum ditulis dan tidak ada yang diperiksa. Persempit pertanyaan "
        "atau pilih lebih sedikit dokumen."
    ),
    FallbackReason.agent_output_limit: (
        # V2-17: the could-not-answer notice of a re-asked follow-up's forced tool round.
        "Pertanyaan yang diajukan ulang ini tidak sempat dijawab: pencarian ulang di dokumen "
        "melampaui batas panjang keluaran model. Silakan ajukan pertanyaan dengan kata lain "
        "atau lebih sempit."
    ),
    FallbackReason.mcp_source_unavailable: (
        "Sumber data eksternal yang dipilih sedang tidak tersedia, sehingga pertanyaan tidak dapat "
        "dijawab."
    ),
    FallbackReason.source_out_of_scope: (
        "Dokumen yang diminta tidak termasuk dalam sumber yang dapat Anda akses."
    ),
    FallbackReason.source_scope_unavailable: (
        "Sumber yang dipilih tidak tersedia pada layanan ini, sehingga pertanyaan tidak dapat "
        "dijawab."
    ),
    FallbackReason.unparseable_completion: (
        "Jawaban tidak dapat disusun dalam format yang dapat diperiksa, sehingga tidak diterbitkan."
    ),
    FallbackReason.source_scope_empty: (
        "Pilihan sumber ini tidak memiliki dokumen yang terindeks, sehingga pertanyaan tidak "
        "dapat dijawab dari dokumen."
    ),
}


INSUFFICIENT_GROUNDING_NOTICE = (
    "Terlalu sedikit kalimat jawaban yang dapat dikonfirmasi oleh dokumen, sehingga jawaban tidak "
    "diterbitkan."
)
"""CV-2: the v1 gate withheld too many sentences to publish the rest."""


def refusal_for(reason: FallbackReason) -> tuple[str, Annotation]:
    """The fixed notice of a refusal and its annotation: one unlocated piece, no claims; nothing
    was checked when the evidence did not fit (V2-18)."""
    from tanda.annotate.aggregate import refusal_annotation

    text = NOTICES[reason]
    checked = reason is not FallbackReason.context_budget_exhausted
    return text, refusal_annotation(text, checked=checked)
