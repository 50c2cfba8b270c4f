"""The proof chain of one answer (ASK-11): steps, weakest link, holes, stats, ``null``."""

from __future__ import annotations

from tanda.contract.proof import ComputedStep, ObservedStep, Proof, RuleStep
from tanda.proof import ProofSource, RuleResult, Statement, build_proof, statements_from_markers
from tanda.records.structure import RuleFact, RuleRecord, SourceSpan

GOODS = ProofSource(1, "MAL BEDELİ: toplam = 40.470,00 TL", page_no=2, layer="entity")
VAT = ProofSource(2, "KDV tutarı 2.100,00 TL olarak hesaplanmıştır.", page_no=2)
SOURCES = [GOODS, VAT]
SEED_ANSWER = (
    "Mal bedeli 40.470,00 TL [S1], KDV 2.100,00 TL [S2]; toplam 40.470,00 + 2.100,00 = "
    "42.570,00 TL [S1][S2]."
)


def build(answer: str, sources: list[ProofSource] = SOURCES, **kwargs: object) -> Proof:
    proof = build_proof(answer, sources, **kwargs)  # type: ignore[arg-type]
    assert proof is not None
    return proof


def computed(proof: Proof) -> list[ComputedStep]:
    return [s for s in proof.steps if isinstance(s, ComputedStep)]


def test_the_seed_example_two_observed_values_and_their_sum_is_verified() -> None:
    proof = build(SEED_ANSWER)
    assert (proof.verdict, proof.weakest_link, proof.holes) == ("verified", "exact", [])
    assert proof.stats.model_dump() == {
        "total": 3,
        "observed": 2,
        "computed": 1,
        "rule": 0,
        "computed_refuted": 0,
        "holes": 0,
    }
    first, second, total = proof.steps
    assert isinstance(first, ObservedStep) and isinstance(second, ObservedStep)
    assert (first.no, first.ground, first.source_no, first.page_no, first.layer) == (
        1,
        "exact",
        1,
        2,
        "entity",
    )
    assert SEED_ANSWER[first.start : first.end] == first.value == "40.470,00 TL"
    assert (second.source_no, second.layer) == (2, "passage")
    assert isinstance(total, ComputedStep)
    assert total.model_dump(exclude={"start", "end"}) == {
        "no": 3,
        "kind": "computed",
        "ground": "exact",
        "expression": "40.470,00 + 2.100,00 = 42.570,00 TL",
        "inputs": ["40.470,00", "2.100,00"],
        "result": "42.570,00 TL",
        "terms": 2,
        "recomputed": "42570.00",
        "arithmetic_ok": True,
        "inputs_grounded": True,
        "source_nos": [1, 2],
        "engine": "deterministic",
    }
    assert SEED_ANSWER[total.start : total.end] == total.expression


def test_a_wrong_result_is_refuted_with_the_right_value_and_breaks_the_chain() -> None:
    proof = build("Toplam 40.470,00 + 2.100,00 = 42.670,00 TL [S1][S2].")
    (step,) = computed(proof)
    assert (step.ground, step.arithmetic_ok, step.recomputed) == ("refuted", False, "42570.00")
    assert step.inputs_grounded  # the inputs are right; the sum is not
    assert (proof.verdict, proof.weakest_link, proof.stats.computed_refuted) == (
        "broken",
        "refuted",
        1,
    )


def test_a_value_in_no_source_is_a_hole_and_the_chain_is_partial() -> None:
    answer = "Mal bedeli 40.470,00 TL [S1]; indirim 999,00 TL [S1]."
    proof = build(answer)
    assert [(h.value, answer[h.start : h.end]) for h in proof.holes] == [("999,00 TL", "999,00 TL")]
    assert (proof.verdict, proof.weakest_link, proof.stats.holes) == ("partial", "unverified", 1)


def test_an_input_found_nowhere_leaves_the_computation_ungrounded_not_refuted() -> None:
    proof = build("Toplam 40.470,00 + 1.000,00 = 41.470,00 TL [S1].")
    (step,) = computed(proof)
    assert (step.ground, step.arithmetic_ok, step.inputs_grounded) == ("unverified", True, False)
    assert step.source_nos == [1]
    assert proof.verdict == "partial"


def test_a_value_cited_to_the_wrong_source_is_relocated() -> None:
    proof = build("KDV 2.100,00 TL [S1].")
    (step,) = proof.steps
    assert (step.ground, step.source_no) == ("relocated", 2)
    assert (proof.verdict, proof.weakest_link) == ("partial", "relocated")


def test_a_result_stated_without_its_operation_makes_no_computed_step() -> None:
    proof = build("Toplam tutar 42.570,00 TL'dir [S1][S2].")
    assert proof.stats.computed == 0
    assert [h.value for h in proof.holes] == ["42.570,00 TL"]


def test_nothing_to_prove_is_null_even_with_citations() -> None:
    assert build_proof("Fatura ödeme koşulları belgede yazılıdır [S1].", SOURCES) is None
    assert build_proof("", SOURCES) is None


def test_a_value_written_twice_is_one_observed_step_with_its_best_ground() -> None:
    proof = build("Mal bedeli 40.470,00 TL. Yani 40.470,00 TL [S1].")
    (step,) = proof.steps
    assert (step.ground, step.source_no, step.start) == ("exact", 1, 30)


def test_rule_steps_carry_the_engine_s_result_and_an_unevaluable_rule_is_a_weak_link() -> None:
    met = RuleResult(
        statement="Ödeme 14 gün içinde yapılır",
        quote="en geç 14 gün içinde",
        outcome="sağlandı",
        source_no=2,
        page_no=1,
    )
    open_ = RuleResult(
        statement="Toplam tutar 50.000 TL'yi aşamaz",
        quote="toplam 50.000 TL'yi aşamaz",
        outcome="DEĞERLENDİRİLEMEDİ",
        detail="toplam tutar belgede yok",
    )
    proof = build("Şart belgede yazılıdır [S2].", rules=[met])
    (step,) = proof.steps
    assert isinstance(step, RuleStep)
    assert (step.ground, step.outcome, step.engine, proof.verdict) == (
        "exact",
        "sağlandı",
        "deterministic",
        "verified",
    )
    both = build("Şart belgede yazılıdır [S2].", rules=[met, open_])
    assert (both.stats.rule, both.verdict, both.weakest_link) == (2, "partial", "unverified")


def test_steps_are_numbered_in_the_order_the_answer_states_them_rules_last() -> None:
    rule = RuleResult(statement="s", quote="q", outcome="IHLAL", detail="50.500 > 50.000")
    proof = build("42.570,00 TL = 40.470,00 + 2.100,00 [S1][S2].", rules=[rule])
    assert [(s.no, s.kind) for s in proof.steps] == [
        (1, "computed"),
        (2, "observed"),
        (3, "observed"),
        (4, "rule"),
    ]


def test_the_chain_is_deterministic() -> None:
    assert build(SEED_ANSWER) == build(SEED_ANSWER)


def test_statements_are_sentences_with_the_markers_after_their_end() -> None:
    answer = "Mal bedeli 40.470,00 TL. [S1] KDV ise Rp. 2.100,00 [S2]. Bitti."
    statements = statements_from_markers(answer)
    assert [(answer[s.start : s.end], s.cites) for s in statements] == [
        ("Mal bedeli 40.470,00 TL. [S1]", (1,)),
        ("KDV ise Rp. 2.100,00 [S2].", (2,)),
        ("Bitti.", ()),
    ]


def test_given_statements_say_what_each_stretch_cites() -> None:
    answer = "Anggaran Rp 5 miliar. Pajak Rp 2.100,00."
    sources = [ProofSource(3, "Anggaran pendidikan Rp 5 miliar.")]
    proof = build(answer, sources, statements=[Statement(0, 21, (3,)), Statement(22, 40, ())])
    assert [(s.ground, s.source_no) for s in proof.steps] == [("exact", 3), ("unverified", None)]


def test_an_answer_of_numbers_only_is_read_in_its_sources_language() -> None:
    # "Rp5.000 M" is Rp 5,000 miliar in Indonesian, Rp 5 million in English.
    text = "Pagu anggaran tahun ini sebesar Rp5.000 M dan realisasi Rp 4.874,35 M."
    sources = [ProofSource(1, text)]
    proof = build("Sisa: Rp5.000 M − Rp 4.874,35 M = Rp 125,65 M [S1].", sources)
    (step,) = computed(proof)
    assert (step.ground, step.recomputed) == ("exact", "125.65")


def test_an_english_answer_copying_an_indonesian_table_s_numbers_reads_them_as_the_table_does() -> (
    None
):
    # "1.500" is 1.5 in English, 1,500 in Indonesian: the numbers are the document's.
    sources = [ProofSource(1, "Pagu anggaran sebesar Rp 1.500 M dan tambahan Rp 500 M.", lang="id")]
    right = build("The total is Rp 1.500 M + Rp 500 M = Rp 2.000 M [S1].", sources, lang="en")
    assert (right.verdict, [s.ground for s in right.steps]) == ("verified", ["exact"] * 3)
    wrong = build("The total is Rp 1.500 M + Rp 500 M = Rp 2.100 M [S1].", sources, lang="en")
    (step,) = computed(wrong)
    assert (step.ground, step.recomputed, step.inputs_grounded) == ("refuted", "2000", True)
    stated = build("The ceiling is Rp 1.500 M [S1].", sources, lang="en")
    assert [s.ground for s in stated.steps] == ["exact"]


def test_numbers_are_read_another_way_only_as_some_source_writes_them() -> None:
    sources = [
        ProofSource(1, "The ceiling is $1.500 million and the top-up $500 million.", lang="en")
    ]
    proof = build("Total: $1.500 million + $500 million = $2.000 million [S1].", sources, lang="en")
    (step,) = computed(proof)
    assert (step.ground, step.recomputed) == ("refuted", "501.500")


def test_a_stored_rule_record_becomes_a_rule_step_with_the_engine_s_facts() -> None:
    quote = "Pembayaran dilakukan paling lambat 14 hari setelah faktur diterima"
    violated = RuleRecord(
        node_id="inv-7:r1",
        document_id="inv-7",
        tenant_id="acme",
        ordinal=4,
        page_no=2,
        chunk_id="inv-7#0",
        span=SourceSpan(start=0, end=len(quote)),
        quote=quote,
        text="KURAL (deadline): Pembayaran ≤ 14 hari → IHLAL: Jangka waktu pembayaran = 30 hari",
        rule_type="deadline",
        subject="Pembayaran",
        condition="≤ 14 d",
        evaluation="IHLAL",
        violations=(
            RuleFact(node_id="inv-7:e9", text="Jangka waktu pembayaran = 30 hari", value="30 d"),
        ),
    )
    unevaluable = violated.model_copy(
        update={"evaluation": "DEĞERLENDİRİLEMEDİ", "violations": (), "reason": "no fact"}
    )
    result = RuleResult.of(violated, source_no=3)
    assert result == RuleResult(
        statement="Pembayaran ≤ 14 d",
        quote=quote,
        outcome="IHLAL",
        detail="Jangka waktu pembayaran = 30 hari",
        source_no=3,
        page_no=2,
    )
    assert RuleResult.of(unevaluable).detail == "no fact"
    proof = build("Pembayaran melewati batas [S3].", [], rules=[result])
    (step,) = proof.steps
    assert (step.kind, step.ground, step.outcome, step.source_no) == ("rule", "exact", "IHLAL", 3)
    assert isinstance(step, RuleStep) and step.page_no == 2
    # Issue 23 item 13: a warning shows its violations too, each of them; a rule met shows the
    # facts that meet it.
    facts = (
        RuleFact(node_id="inv-7:e9", text="Jangka waktu pembayaran = 30 hari", value="30 d"),
        RuleFact(node_id="inv-7:e10", text="Tanggal faktur = 1 Mei", value="2024-05-01"),
    )
    warned = violated.model_copy(update={"evaluation": "UYARI", "violations": facts})
    detail = "Jangka waktu pembayaran = 30 hari; Tanggal faktur = 1 Mei"
    assert RuleResult.of(warned).detail == detail
    met = violated.model_copy(update={"evaluation": "sağlandı", "satisfied_by": facts[1:]})
    assert RuleResult.of(met).detail == "Tanggal faktur = 1 Mei"


# --- issue 23: identifiers, the invoice's own rounding, warnings -------------------------------

INVOICE = ProofSource(
    1,
    "Invoice no: 0\nOrder reference: PO-4711\nSeller tax id: DE123456789\n"
    "Payment terms: 30 days net\nAmount due: 250.33 EUR\nTax: 27 % of 69180.00 HUF = 18679.00 HUF",
    layer="entity",
    lang="en",
)


def test_an_identifier_is_not_an_observed_value() -> None:
    # Given an answer that states only the invoice's number (an evidence line of the entity layer),
    # when its proof is built, then nothing is proved: `0` is a name, not a quantity.
    assert build_proof("REFERENCE: Invoice no = 0 [S1]", [INVOICE]) is None


def test_identifiers_in_prose_are_neither_steps_nor_holes_and_values_still_are() -> None:
    # Given an answer naming the invoice, its order and the seller's tax id by their numbers —
    # one of them found in no source — beside the payment terms and the amount due,
    answer = (
        "Invoice no. 12115118 (order reference PO-4711, seller tax id DE123456789) is payable "
        "30 days net [S1]. The amount due on invoice 20150483 is 250.33 EUR [S1]."
    )

    # when its proof is built,
    proof = build(answer, [INVOICE])

    # then only the quantities are observed steps, and no identifier is a hole.
    values = [s.value for s in proof.steps if isinstance(s, ObservedStep)]
    assert values == ["30 days", "250.33 EUR"]
    assert (proof.verdict, proof.holes) == ("verified", [])


def test_a_date_is_still_a_value_and_an_unfound_amount_still_a_hole() -> None:
    proof = build("REFERENCE: Invoice no = 0 [S1]; amount due 260.00 EUR [S1].", [INVOICE])
    assert [h.value for h in proof.holes] == ["260.00 EUR"]
    assert proof.verdict == "partial"


def test_a_tax_rounded_to_the_invoice_s_whole_units_is_verified_as_br_co_17_accepts_it() -> None:
    # Given a forint invoice writing whole amounts with two decimals: 69180.00 × 27 % = 18678.60,
    # which the invoice (and BR-CO-17) round to 18679.00,
    proof = build("VAT: 69180.00 × 27 % = 18679.00 [S1]", [INVOICE])
    # then the computed step holds at the invoice's precision.
    (step,) = computed(proof)
    assert (step.arithmetic_ok, step.ground, step.recomputed) == (True, "exact", "18678.60")
    assert proof.verdict == "verified"


def test_the_invoice_s_rounding_accepts_an_exact_half_either_way_and_nothing_beyond() -> None:
    # 69181.00 × 50 % = 34590.50: an exact half rounds to 34590.00 or 34591.00 (BR-CO-17's half
    # unit, inclusive); a whole unit further is wrong.
    for stated, ok in (("34590.00", True), ("34591.00", True), ("34592.00", False)):
        (step,) = computed(build(f"69181.00 × 50 % = {stated} [S1]", [INVOICE]))
        assert step.arithmetic_ok is ok, stated


def test_the_proof_stays_strict_where_the_invoice_s_rounding_does_not_apply() -> None:
    for answer in (
        "69180.00 × 27 % = 18680.00 [S1]",  # more than half a unit off
        "69180.50 × 27 % = 18679.00 [S1]",  # the base keeps cents: so does the tax
        "69180.00 × 27 % = 18678.70 [S1]",  # the result keeps a decimal
        "69180.00 + 1000.00 = 70180.40 [S1]",  # no rate: not a tax amount
        "18678.60 / 1.00 = 18679.00 [S1]",
    ):
        (step,) = computed(build(answer, [INVOICE]))
        assert (step.arithmetic_ok, step.ground) == (False, "refuted"), answer


def test_a_warning_rule_is_shown_as_such_and_does_not_weaken_the_verdict() -> None:
    # Given the engine's DUE-DATE warning (a tanda rule, not EN 16931: issue 23),
    warning = RuleResult(
        statement="DUE-DATE The payment due date is not before the issue date",
        quote="Invoice: 380, issued 2013-08-25, due 2013-05-10",
        outcome="UYARI",
        detail="2013-05-10 < 2013-08-25",
        source_no=1,
    )
    # when it is a rule step of a chain,
    proof = build("Amount due: 250.33 EUR [S1]", [INVOICE], rules=[warning])
    # then the step says UYARI, evaluated (exact), and the chain is still verified.
    (step,) = [s for s in proof.steps if isinstance(s, RuleStep)]
    assert (step.outcome, step.ground, step.detail) == ("UYARI", "exact", warning.detail)
    assert proof.verdict == "verified"


# --- issue 23 item 13: the limits mutation testing found untested ----------------------------


def test_a_value_at_a_statement_s_first_offset_is_cited_by_it_and_not_by_the_one_before() -> None:
    # Given two statements that meet where the second value starts,
    answer = "40.470,00 TL mal bedeli. 2.100,00 TL KDV."
    at = answer.index("2.100")

    def grounds(first: tuple[int, ...], second: tuple[int, ...]) -> list[tuple[str, str]]:
        statements = [Statement(0, at, first), Statement(at, len(answer), second)]
        proof = build(answer, statements=statements)
        return [(s.ground, s.statement) for s in proof.steps if isinstance(s, ObservedStep)]

    # each value is read with the statement that starts at it — its citations, its text —
    texts = ["40.470,00 TL mal bedeli.", "2.100,00 TL KDV."]
    assert grounds((1,), (2,)) == [("exact", texts[0]), ("exact", texts[1])]
    # and a statement's end is not in it: citing each other's source relocates both.
    assert grounds((2,), (1,)) == [("relocated", texts[0]), ("relocated", texts[1])]


def test_an_observed_step_shows_its_sentence_without_the_markers() -> None:
    proof = build("Mal bedeli 40.470,00 TL [S1].")
    assert [s.statement for s in proof.steps] == ["Mal bedeli 40.470,00 TL."]


def test_the_same_digits_as_another_kind_of_value_are_two_observed_steps() -> None:
    # A date or a time and a count with its digits, a percentage (%, pp, basis points) and a
    # plain number, a negative and a positive value: each is a value of its own.
    for answer, values in [
        ("On 2023-01-05 we sold 2023 units [S1].", ["2023-01-05", "2023"]),
        ("At 12:30 we sold 12 units [S1].", ["12:30", "12"]),
        ("Rates rose 5% on 5 units [S1].", ["5%", "5"]),
        ("A 5 pp rise on 5 units [S1].", ["5 pp", "5"]),
        ("A 50 basis points cut on 50 units [S1].", ["50 basis points", "50"]),
        ("It moved -0.5 and then 0.5 [S1].", ["-0.5", "0.5"]),
    ]:
        proof = build(answer, [ProofSource(1, answer)])
        assert [(s.value, s.ground) for s in proof.steps] == [(v, "exact") for v in values]


def test_numbers_only_are_read_in_the_language_a_source_is_written_or_marked_in() -> None:
    # "Rp5.000 M" is Rp 5,000 miliar in Indonesian: the answer, of numbers only, copies them.
    answer = "Rp5.000 M − Rp 4.874,35 M = Rp 125,65 M [S1]."
    written = ProofSource(1, "Pagu tahun ini sebesar Rp5.000 M dan realisasi Rp 4.874,35 M.")
    marked = ProofSource(1, "Rp5.000 M; Rp 4.874,35 M", lang="id")
    unknown = ProofSource(1, "Rp5.000 M; Rp 4.874,35 M")
    for sources, recomputed in [
        ([written], "125.65"),
        ([marked], "125.65"),
        ([unknown, marked], "125.65"),
        ([unknown], "-4869.35"),
    ]:
        (step,) = computed(build(answer, sources))
        assert step.recomputed == recomputed


def test_a_paragraph_s_enumerator_states_no_value_and_an_ordinal_does() -> None:
    # Issue 23 item 13: "(1)" opening an Indonesian paragraph is no step; "3rd" is one.
    apba = ProofSource(1, "Belanja pegawai tahun 2022 mencapai Rp 871.667.219.294.")
    quarters = ProofSource(2, "The 3rd quarter had 40 units.")
    numbered = build("(1) Belanja pegawai mencapai Rp 871.667.219.294 [S1].", [apba])
    assert [(s.value, s.ground) for s in numbered.steps] == [("Rp 871.667.219.294", "exact")]
    ordinal = build("The 3rd quarter had 40 units [S2].", [apba, quarters])
    assert [(s.value, s.ground) for s in ordinal.steps] == [("3rd", "exact"), ("40", "exact")]


def test_markers_after_the_last_sentence_or_a_line_s_end_belong_to_the_sentence_before() -> None:
    # Issue 23 item 13: markers that end the answer, end a line or open the next one.
    assert statements_from_markers("Mal bedeli 40 TL. [S1]") == [Statement(0, 22, (1,))]
    assert statements_from_markers("A 1. [S1]\nB 2 [S2].") == [
        Statement(0, 9, (1,)),
        Statement(10, 19, (2,)),
    ]
    assert statements_from_markers("A 1. [S1]\n[S2] B 2.") == [
        Statement(0, 14, (1, 2)),
        Statement(15, 19, ()),
    ]


def test_a_sentence_with_initials_abbreviations_or_a_colon_in_brackets_is_one_statement() -> None:
    # Issue 22: the proof cut "… oleh Prof. Ir. Hendrik …" after "Prof." — a statement citing
    # nothing — and "(lahir: 1880)" at its colon; the sentence is one statement citing S3.
    answer = (
        "Kanal ini dikonsepkan oleh Prof. Ir. Hendrik van Breen (lahir: 1880) pada tahun "
        "1913. [S3]\n- S. Nishijima dan Achmad Soebardjo merumuskannya. [S1]"
    )
    first, second = statements_from_markers(answer)
    assert (first.start, first.cites) == (0, (3,))
    assert answer[first.start : first.end].endswith("1913. [S3]")
    assert answer[second.start : second.end] == (
        "- S. Nishijima dan Achmad Soebardjo merumuskannya. [S1]"
    )
    assert second.cites == (1,)


# --- issue 23 item 13: what the second mutation run of tanda/proof left untested ----------

PAGU = ProofSource(
    1, "Belanja pegawai tahun 2022 mencapai Rp 871.667.219.294 dan pagu Rp5.000 M.", page_no=4
)
INDONESIAN_TABLE = ProofSource(
    1, "Pagu anggaran belanja daerah sebesar Rp 1.500 M dan tambahan Rp 500 M menurut peraturan."
)


def test_a_value_stated_alone_and_again_as_an_operand_is_one_step_with_the_better_ground() -> None:
    # 5.000 stated on its own is in no source; as the divisor it is the bare number of the
    # source's Rp5.000 M — one step, at the operand, tolerant, pointing at the source.
    answer = "Pagu 5.000 tidak disebut. Realisasi 4.000 / 5.000 = 80% [S1]."
    proof = build(answer, [PAGU])
    observed = [s for s in proof.steps if isinstance(s, ObservedStep)]
    assert [(s.value, s.ground, s.source_no, s.source_value) for s in observed] == [
        ("4.000", "unverified", None, None),
        ("5.000", "tolerant", 1, "Rp5.000 M"),
    ]
    assert observed[1].start == answer.index("5.000 =")
    assert [s.no for s in proof.steps] == [1, 2, 3]
    (step,) = computed(proof)
    assert (step.arithmetic_ok, step.recomputed, step.source_nos) == (True, "80", [1])
    assert (proof.verdict, proof.weakest_link) == ("partial", "unverified")


def test_an_answer_of_numbers_only_is_read_in_the_language_given_else_its_sources() -> None:
    # 1.500 is 1500 in Indonesian, 1.5 in English: the caller's language decides; without one,
    # the sources' language does.
    answer = "1.500 + 500 = 2.000 [S1]"
    english = ProofSource(
        1, "The budget of the regional government is 1.500 and the addition is 500 today."
    )
    (as_english,) = computed(build(answer, [english]))
    assert (as_english.arithmetic_ok, as_english.recomputed) == (False, "501.500")
    (as_indonesian,) = computed(build(answer, [english], lang="id"))
    assert (as_indonesian.arithmetic_ok, as_indonesian.recomputed) == (True, "2000")


def test_a_source_s_number_convention_is_its_marked_language_else_the_one_its_text_reads_in() -> (
    None
):
    answer = "The total is Rp 1.500 M + Rp 500 M = Rp 2.000 M [S1]."
    text = INDONESIAN_TABLE.text
    # unmarked, the source reads as Indonesian: 1.500 is 1,500 there, and the sum is right;
    guessed = build(answer, [ProofSource(1, text)], lang="en")
    assert (guessed.verdict, computed(guessed)[0].recomputed) == ("verified", "2000")
    # marked English, it writes 1.5 — and the sum is wrong.
    marked = build(answer, [ProofSource(1, text, lang="en")], lang="en")
    assert (marked.verdict, computed(marked)[0].recomputed) == ("broken", "501.500")


def test_operands_computed_at_the_chain_s_scale_are_the_source_s_own_digits() -> None:
    # 44.1 - 56.7 = -12.6 million is computed in millions: its operands are the source's 44.1
    # million and 56.7 million, digit for digit.
    source = ProofSource(1, "Revenue was 44.1 million this year and 56.7 million last year.")
    proof = build("Revenue fell: 44.1 - 56.7 = -12.6 million [S1].", [source], lang="en")
    assert [(s.kind, s.ground) for s in proof.steps] == [
        ("observed", "exact"),
        ("observed", "exact"),
        ("computed", "exact"),
    ]


def test_a_wrong_sum_read_two_ways_is_refuted_as_read_where_its_inputs_are_found() -> None:
    # Neither 1.5 + 500 nor 1500 + 500 is 2.100; the numbers are the table's (as written, bare),
    # so the operation is refuted as the table reads them. The right operation before it stays.
    proof = build("2 + 2 = 4. Total 1.500 + 500 = 2.100 [S1].", [INDONESIAN_TABLE], lang="en")
    first, second = computed(proof)
    assert (first.expression, first.arithmetic_ok, first.recomputed) == ("2 + 2 = 4", True, "4")
    assert (second.ground, second.recomputed, second.inputs_grounded) == ("refuted", "2000", True)


def test_a_sum_right_as_the_other_convention_reads_it_is_right_though_its_inputs_are_nowhere() -> (
    None
):
    unrelated = ProofSource(
        1, "Laporan keuangan pemerintah daerah menurut peraturan yang berlaku tahun ini."
    )
    (step,) = computed(build("Total 1.500 + 500 = 2.000 [S1].", [unrelated], lang="en"))
    assert (step.arithmetic_ok, step.recomputed, step.ground) == (True, "2000", "unverified")


def test_a_value_found_as_written_is_not_looked_up_the_other_way() -> None:
    # 1.500 is in the cited Indonesian source; that another source writes 1.5 does not matter.
    sources = [
        ProofSource(1, "Pagu anggaran belanja daerah sebesar 1.500 menurut peraturan.", lang="id"),
        ProofSource(2, "The rate is 1.5 according to the regulation of the minister.", lang="en"),
    ]
    proof = build("Pagu anggaran 1.500 [S1].", sources, lang="id")
    assert [(s.ground, s.source_no) for s in proof.steps] == [("exact", 1)]


def test_operands_at_the_chain_s_scale_are_found_where_the_source_writes_them_in_full() -> None:
    source = ProofSource(1, "Revenue was 44,100,000 this year and 56,700,000 last year.")
    proof = build("Revenue fell: 44.1 - 56.7 = -12.6 million [S1].", [source], lang="en")
    assert [(s.kind, s.ground) for s in proof.steps] == [
        ("observed", "tolerant"),
        ("observed", "tolerant"),
        ("computed", "tolerant"),
    ]


def test_an_operand_signed_by_the_operator_before_it_is_observed_where_its_digits_stand() -> None:
    # "−3" took the minus as its sign: the operand is 3, where the 3 is written.
    answer = "Selisih: 12 −3 = 9 [S1]."
    proof = build(answer, [ProofSource(1, "Nilai 12 dan 3.")], lang="id")
    observed = [s for s in proof.steps if isinstance(s, ObservedStep)]
    assert [(s.value, answer[s.start : s.end], s.ground) for s in observed] == [
        ("12", "12", "exact"),
        ("3", "3", "exact"),
    ]
    assert computed(proof)[0].arithmetic_ok


def test_only_an_operation_with_numbers_of_its_own_that_read_two_ways_is_read_otherwise() -> None:
    # "Rp 1 M + Rp 500 jt = Rp 1,5 M" is wrong in English (M is a million) and right in
    # Indonesian (M is miliar), but none of its numbers is a 1.500 that reads two ways: the
    # answer's language decides, though "Rp 1.500 M" elsewhere in the answer does read two ways.
    sources = [
        ProofSource(
            1, "Pagu anggaran sebesar Rp 1.500 M, terdiri dari Rp 1 M dan Rp 500 jt.", lang="id"
        )
    ]
    answer = "The ceiling is Rp 1.500 M [S1]. Rp 1 M + Rp 500 jt = Rp 1,5 M [S1]."
    proof = build(answer, sources, lang="en")
    (step,) = computed(proof)
    assert (step.expression, step.ground, step.recomputed) == (
        "Rp 1 M + Rp 500 jt = Rp 1,5 M",
        "refuted",
        "501.0",
    )
    assert proof.verdict == "broken"


def test_a_value_is_looked_up_the_other_way_only_when_that_way_reads_all_of_it() -> None:
    # Turkish "1.500 bin" is 1,500,000; English reads only its "1.500" (1.5) and leaves "bin":
    # another value, so the 1.500 of an English source does not ground it.
    source = ProofSource(1, "The rate was 1.500 in the first quarter.", lang="en")
    proof = build("Oran 1.500 bin olarak gerçekleşti [S1].", [source], lang="tr")
    assert [(s.value, s.ground, s.source_no) for s in proof.steps] == [
        ("1.500 bin", "unverified", None)
    ]
    # The same digits written alone read as the source's value.
    alone = build("Oran 1.500 olarak gerçekleşti [S1].", [source], lang="tr")
    assert [(s.value, s.ground, s.source_no) for s in alone.steps] == [("1.500", "exact", 1)]
