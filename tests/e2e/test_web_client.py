"""The reference web client in headless Chromium against the app with the scripted model: every
verdict, every fallback, the streams the server never sends (no annotations, another schema, an
error after annotations), emoji before claims, chips that open passages, a continued
conversation (CC-1 … CC-6, V2-21). The marked DOM ranges must equal the claim texts exactly."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.corpus import QUESTION

from .conftest import SCENARIOS, STUB_ANSWER, Served

pytestmark = pytest.mark.e2e

DOCS_SCREENSHOT = Path(__file__).parents[2] / "docs" / "screenshot.png"
ERROR_SCENARIOS = {"agent_upstream_error", "guard_unavailable", "nothing_found"}  # an `error` frame
ANSWERED = sorted(p.stem for p in SCENARIOS.glob("*.json") if p.stem not in ERROR_SCENARIOS)

UNVERIFIED = "belum diverifikasi"
LABELS = {
    "supported": "terverifikasi",
    "unsupported": f"{UNVERIFIED}: tidak didukung sumber",
    "unverified": f"{UNVERIFIED}: ",
    "uncited": f"{UNVERIFIED}: tanpa sumber",
    "invalid_citation": f"{UNVERIFIED}: sitasi tidak dapat diselesaikan",
    "from_conversation": "dari percakapan, bukan dokumen",
}

RENDERED = """answer => ({
  claims: [...answer.querySelectorAll('[data-claim]')].map(e => {
    const marks = answer.querySelector(`[data-for="${e.id}"]`);
    return {
      verdict: e.dataset.verdict, start: +e.dataset.start, end: +e.dataset.end,
      text: e.textContent, cls: e.className, reason: e.dataset.reason || null,
      mark: marks ? marks.querySelector('.mark').textContent.trim() : null,
      markLabel: marks ? marks.querySelector('.mark').getAttribute('aria-label') : null,
      proofChips: marks ? [...marks.querySelectorAll('button.chip-proof')].map(b => b.dataset.key)
        : [],
      otherChips: marks ? [...marks.querySelectorAll('button.chip-not-proof')]
        .map(b => b.textContent) : [],
      describedBy: e.getAttribute('aria-describedby'),
    };
  }),
  framing: [...answer.querySelectorAll('[data-framing]')].map(e => ({
    start: +e.dataset.start, end: +e.dataset.end, text: e.textContent, cls: e.className,
    marked: !!answer.querySelector(`[data-for="${e.id}"]`) ,
  })),
  uncovered: [...answer.querySelectorAll('[data-uncovered]')].map(e => e.textContent),
  uncoveredMarks: [...answer.querySelectorAll('.mark-uncovered')].map(e => e.textContent.trim()),
  supportedMarks: answer.querySelectorAll('.mark-supported').length,
  proofChips: answer.querySelectorAll('.chip-proof').length,
  banner: answer.querySelector('.banner').hidden ? null
    : answer.querySelector('.banner').textContent,
  trust: answer.dataset.trust,
  checked: answer.querySelector('.banner').dataset.checked || null,
  summary: answer.querySelector('.summary').textContent,
  verification: answer.dataset.verification,
  state: answer.dataset.state,
})"""


# ------------------------------------------------------------------ helpers


def utf16_slice(text: str, start: int, end: int) -> str:
    return text.encode("utf-16-le")[2 * start : 2 * end].decode("utf-16-le")


def open_client(page: Page, served: Served, **query: str) -> None:
    page.goto(f"{served.base_url}/?{urlencode(query)}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    page.fill("#api-key", served.api_key)
    page.fill("#jwt", served.token())


def ask(page: Page, question: str = QUESTION) -> Locator:
    before = page.locator(".turn").count()
    page.fill("#question", question)
    page.click("#ask")
    turn = page.locator(".turn").nth(before)
    expect(turn.locator(".answer")).not_to_have_attribute("data-state", "streaming", timeout=20000)
    return turn


def rendered(turn: Locator) -> dict[str, Any]:
    result: dict[str, Any] = turn.locator(".answer").evaluate(RENDERED)
    return result


def json_answer(served: Served, scenario: str) -> dict[str, Any]:
    response = httpx.post(
        f"{served.base_url}/query/v2",
        json={"query": QUESTION},
        headers=served.headers(scenario),
        timeout=30,
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def assert_contract(view: dict[str, Any], body: dict[str, Any]) -> None:
    """The page shows exactly what the contract allows for this response."""
    answer = body["answer"]
    assert view["state"] == "done" and view["trust"] == "annotated"
    # Every claim is one element at its UTF-16 offsets whose text is the claim text, exactly.
    expected = [(c["verdict"], c["start_utf16"], c["end_utf16"], c["text"]) for c in body["claims"]]
    shown = [(c["verdict"], c["start"], c["end"], c["text"]) for c in view["claims"]]
    assert shown == expected
    for claim, element in zip(body["claims"], view["claims"], strict=True):
        assert element["text"] == utf16_slice(answer, claim["start_utf16"], claim["end_utf16"])
        assert LABELS[claim["verdict"]] in element["mark"], element
        assert element["markLabel"].startswith("Tanda: ")  # not colour-only
        assert element["describedBy"] and element["describedBy"].endswith("-mark")
        keys = [k for k in claim["citation_keys"] if k not in claim["invalid_citation_keys"]]
        if claim["verdict"] == "supported":
            assert element["proofChips"] == keys
            assert "claim-supported" in element["cls"]
        else:
            # CC-2: nothing but `supported` looks verified; its chips are not proof.
            assert element["proofChips"] == []
            assert "terverifikasi" not in element["mark"].replace(UNVERIFIED, "")
            assert "claim-supported" not in element["cls"]
            if claim["verdict"] in {"unsupported", "unverified"}:
                assert all("bukan bukti" in chip for chip in element["otherChips"])
        if claim["verdict"] == "unverified":
            assert element["reason"] == claim["unverified_reason"]
            assert claim["unverified_reason"] in element["mark"]
    # Framing: located, unmarked, never styled as verified.
    framing = [(f["start_utf16"], f["end_utf16"], f["text"]) for f in body["framing"]]
    assert [(f["start"], f["end"], f["text"]) for f in view["framing"]] == framing
    assert all("supported" not in f["cls"] and not f["marked"] for f in view["framing"])
    supported = sum(c["verdict"] == "supported" for c in body["claims"])
    assert view["supportedMarks"] == supported
    # CC-4: the banner whenever verification is not full.
    verification = body["faithfulness"]["verification"]
    assert view["verification"] == verification
    if verification == "full":
        assert view["banner"] is None
        assert view["uncovered"] == []
    else:
        assert view["banner"] is not None
        assert "belum sepenuhnya terverifikasi" in view["banner"]
    # CC-6: "belum diperiksa" exactly where the report says checked: false; a report without the
    # key reads as neither checked-and-passed nor unchecked - verification alone decides.
    unchecked = body["faithfulness"].get("checked") is False
    assert ("checked" in body["faithfulness"]) is unchecked
    assert (view["checked"] == "false") is unchecked
    assert ("belum diperiksa" in view["summary"]) is unchecked
    assert ("Belum diperiksa" in (view["banner"] or "")) is unchecked
    # Text outside every span (a refusal, a notice) shows unverified.
    if not body["claims"] and not body["framing"]:
        assert view["uncovered"] == [answer.strip()]
        assert view["uncoveredMarks"] and all(UNVERIFIED in m for m in view["uncoveredMarks"])


# ------------------------------------------------------------------ every scenario


@pytest.mark.parametrize("scenario", ANSWERED)
def test_every_scenario_marks_its_spans_as_the_contract_requires(
    page: Page, served: Served, screenshot: Any, scenario: str
) -> None:
    body = json_answer(served, scenario)
    open_client(page, served, scenario=scenario)
    turn = ask(page)
    view = rendered(turn)
    assert_contract(view, body)
    if body["fallback_used"]:
        # CC-6: a refusal is no trust signal; the banner names it.
        assert "Penolakan" in view["banner"] or "Belum diperiksa" in view["banner"]
    screenshot(page, scenario)


def test_emoji_before_claims_offsets_are_utf16_and_the_table_row_is_one_element(
    page: Page, served: Served
) -> None:
    body = json_answer(served, "emoji_before_claim")
    assert all(c["start_utf16"] > c["start"] for c in body["claims"])  # astral before each
    open_client(page, served, scenario="emoji_before_claim")
    turn = ask(page)
    assert_contract(rendered(turn), body)
    row = turn.locator("table.md-table tr.md-row [data-claim]")
    expect(row).to_have_count(1)
    assert row.text_content() == "Pendidikan 🎓 | Rp 5 miliar"
    expect(row.locator(".cell")).to_have_count(2)
    expect(turn.locator("h3.md-heading [data-framing]")).to_have_text(
        "🎓📈 Ringkasan anggaran Aceh"
    )
    expect(turn.locator("ul.md-list > li")).to_have_count(2)


def test_context_budget_shows_belum_diperiksa(page: Page, served: Served) -> None:
    open_client(page, served, scenario="context_budget")
    turn = ask(page)
    banner = turn.locator(".banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Belum diperiksa")
    expect(banner).to_have_attribute("data-checked", "false")
    expect(turn.locator(".mark-uncovered").first).to_contain_text("belum diperiksa")
    expect(turn.locator(".summary")).to_contain_text("belum diperiksa")


def test_policy_block_publishes_no_marks_and_keeps_the_banner(page: Page, served: Served) -> None:
    open_client(page, served, scenario="policy_blocked")
    turn = ask(page)
    view = rendered(turn)
    assert view["claims"] == [] and view["supportedMarks"] == 0
    assert "Penolakan (policy_blocked)" in view["banner"]


# ------------------------------------------------------------------ chips and passages


def test_a_supported_chip_opens_its_passage_with_the_document_identity(
    page: Page, served: Served
) -> None:
    open_client(page, served, scenario="seed_example")
    turn = ask(page)
    chip = turn.locator("button.chip-proof[data-key=P1]")
    expect(chip).to_have_count(1)
    chip.focus()  # keyboard: a chip is a button
    page.keyboard.press("Enter")
    dialog = page.locator("#passage-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_have_attribute("data-key", "P1")
    expect(dialog.locator("#passage-text")).to_contain_text(
        "Anggaran pendidikan 2023 adalah Rp 5 miliar."
    )
    identity = dialog.locator("#passage-identity")
    expect(identity).to_contain_text("Qanun Anggaran")
    expect(identity).to_contain_text("Qanun Aceh Nomor 1 Tahun 2023")
    expect(identity).to_contain_text("qanun-2023")
    expect(dialog.locator("#passage-proof")).to_have_attribute("data-proof", "true")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()


# Animation frames held until the test lets them run: a render the client asked for while the
# answer streamed is then still waiting when the stream ends, as on a busy machine.
HOLD_FRAMES = """() => {
  const waiting = new Map();
  let next = 1;
  window.requestAnimationFrame = (callback) => { waiting.set(next, callback); return next++; };
  window.cancelAnimationFrame = (id) => { waiting.delete(id); };
  window.runHeldFrames = () => {
    const callbacks = [...waiting.values()];
    waiting.clear();
    for (const callback of callbacks) callback(performance.now());
    return callbacks.length;
  };
}"""


def test_a_focused_chip_keeps_the_keyboard_focus_when_a_late_render_runs(
    page: Page, served: Served
) -> None:
    # Given a finished answer while a render asked for during its stream still waits for its frame
    open_client(page, served, scenario="seed_example")
    page.evaluate(HOLD_FRAMES)
    turn = ask(page)
    chip = turn.locator("button.chip-proof[data-key=P1]")
    expect(chip).to_have_count(1)
    # when a keyboard reader focuses a chip and the waiting frames then run,
    chip.focus()
    page.evaluate("() => window.runHeldFrames()")
    # then the chip still has the focus, and Enter opens its passage.
    assert page.evaluate("() => document.activeElement.dataset.key") == "P1"
    page.keyboard.press("Enter")
    expect(page.locator("#passage-dialog")).to_be_visible()
    expect(page.locator("#passage-dialog")).to_have_attribute("data-key", "P1")


def test_an_unsupported_claims_chip_does_not_read_as_proof(page: Page, served: Served) -> None:
    open_client(page, served, scenario="seed_example")
    turn = ask(page)
    claim = turn.locator("[data-claim][data-verdict=unsupported]")
    marks = turn.locator(f"[data-for={claim.get_attribute('id')}]")
    chip = marks.locator("button.chip")
    expect(chip).to_have_text("P1 · bukan bukti")
    expect(chip).to_have_attribute("data-proof", "false")
    chip.click()
    proof = page.locator("#passage-proof")
    expect(proof).to_have_attribute("data-proof", "false")
    expect(proof).to_contain_text("Bukan bukti")
    page.click("#passage-close")


def test_invalid_citation_keys_show_as_unresolvable(page: Page, served: Served) -> None:
    open_client(page, served, scenario="uncited_and_invalid")
    turn = ask(page)
    invalid = turn.locator("[data-claim][data-verdict=invalid_citation]")
    marks = turn.locator(f"[data-for={invalid.get_attribute('id')}]")
    expect(marks.locator(".unresolvable")).to_contain_text("P7 tidak dapat diselesaikan")
    expect(marks.locator("button")).to_have_count(0)


# ------------------------------------------------------------------ streams the server never sends


def test_a_stream_without_annotations_is_entirely_unverified(
    page: Page, served: Served, screenshot: Any
) -> None:
    open_client(page, served, endpoint="/__e2e/stream/no_annotations")
    turn = ask(page)
    view = rendered(turn)
    assert view["trust"] == "missing" and view["state"] == "done"
    assert view["claims"] == [] and view["framing"] == [] and view["supportedMarks"] == 0
    assert view["uncovered"] == [STUB_ANSWER]
    assert "Anotasi tidak diterima" in view["banner"]
    screenshot(page, "stub_no_annotations")


def test_another_schema_is_entirely_unverified_even_with_full_annotations(
    page: Page, served: Served, screenshot: Any
) -> None:
    open_client(page, served, endpoint="/__e2e/stream/other_schema")
    turn = ask(page)
    view = rendered(turn)
    assert view["trust"] == "schema"
    assert view["claims"] == [] and view["supportedMarks"] == 0 and view["proofChips"] == 0
    assert view["uncovered"] == [STUB_ANSWER]
    assert "Skema anotasi tidak dikenal (annotate-v3)" in view["banner"]
    screenshot(page, "stub_other_schema")


def test_an_error_after_annotations_keeps_marks_of_the_text_that_arrived(
    page: Page, served: Served, screenshot: Any
) -> None:
    open_client(page, served, endpoint="/__e2e/stream/error_after_annotations")
    turn = ask(page)
    view = rendered(turn)
    assert view["framing"][0]["text"] == "Berikut datanya."
    assert view["claims"] == []  # its text never arrived: not shown as verified
    assert view["supportedMarks"] == 0
    assert "galat" in view["banner"].lower() and "tidak tertutup" in view["banner"]
    expect(turn.locator(".error")).to_contain_text("upstream_failed")
    screenshot(page, "stub_error_after_annotations")


def test_the_endpoint_parameter_accepts_only_same_origin_paths(page: Page, served: Served) -> None:
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url))
    open_client(page, served, endpoint="//evil.example/steal", scenario="default")
    ask(page)
    posts = [url for url in seen if "stream" in url]
    assert posts == [f"{served.base_url}/query/v2/stream"]


# ------------------------------------------------------------------ conversation, credentials


def test_the_conversation_continues_and_a_repeated_premise_is_neutral(
    page: Page, served: Served, screenshot: Any
) -> None:
    open_client(page, served, scenario="seed_example")
    first = ask(page)
    info = page.locator("#conversation-info")
    conversation_id = info.get_attribute("data-conversation-id")
    assert conversation_id
    page.fill("#scenario", "follow_up_from_conversation")
    second = ask(page, "Dan berapa anggaran pendidikannya menurut dokumen?")
    assert info.get_attribute("data-conversation-id") == conversation_id
    view = rendered(second)
    verdicts = {c["verdict"]: c for c in view["claims"]}
    repeated = verdicts["from_conversation"]
    assert repeated["text"] == "Anda menanyakan anggaran pendidikan Aceh tahun 2023."
    assert repeated["mark"].endswith("dari percakapan, bukan dokumen")
    assert repeated["proofChips"] == [] and "claim-supported" not in repeated["cls"]
    assert verdicts["supported"]["proofChips"] == ["P1"]
    assert view["verification"] == "partial" and view["banner"] is not None
    stored = httpx.get(
        f"{served.base_url}/conversations/{conversation_id}", headers=served.headers(), timeout=30
    ).json()
    assert [m["question"] for m in stored["messages"]] == [
        QUESTION,
        "Dan berapa anggaran pendidikannya menurut dokumen?",
    ]
    assert rendered(first)["state"] == "done"
    screenshot(page, "conversation")
    if os.environ.get("TANDA_UPDATE_SCREENSHOT") == "1":
        page.locator("#settings").evaluate("d => { d.open = false; }")
        page.screenshot(path=str(DOCS_SCREENSHOT), full_page=True)


def test_new_conversation_forgets_the_id(page: Page, served: Served) -> None:
    open_client(page, served, scenario="default")
    ask(page)
    page.click("#new-conversation")
    expect(page.locator(".turn")).to_have_count(0)
    expect(page.locator("#conversation-info")).to_have_attribute("data-conversation-id", "")


def test_credentials_persist_in_session_storage_only(page: Page, served: Served) -> None:
    open_client(page, served)
    page.reload()
    expect(page.locator("#api-key")).to_have_value(served.api_key)
    stored = page.evaluate("() => [sessionStorage.getItem('tanda.apiKey'), localStorage.length]")
    assert stored == [served.api_key, 0]


def test_rejected_credentials_are_explained_in_indonesian(
    page: Page, served: Served, page_errors: list[str]
) -> None:
    open_client(page, served, scenario="default")
    page.fill("#jwt", "not-a-token")
    turn = ask(page)
    expect(turn.locator(".answer")).to_have_attribute("data-state", "failed")
    expect(turn.locator(".error")).to_contain_text("Kredensial ditolak")
    expect(turn.locator("[data-claim]")).to_have_count(0)
    page_errors.clear()  # Chromium logs the 403 of the fetch itself


@pytest.mark.parametrize(
    ("scenario", "code"),
    [("nothing_found", "no_readable_result"), ("guard_unavailable", "policy_guard_unavailable")],
)
def test_a_stream_error_frame_is_shown_without_any_mark(
    page: Page, served: Served, scenario: str, code: str
) -> None:
    open_client(page, served, scenario=scenario)
    turn = ask(page)
    expect(turn.locator(".error")).to_contain_text(code)
    expect(turn.locator(".mark-supported")).to_have_count(0)
    expect(turn.locator("[data-claim]")).to_have_count(0)


# ------------------------------------------------------------------ the client's own parts


def test_the_sse_parser_handles_split_lines_crlf_comments_and_multiline_data(
    page: Page, served: Served
) -> None:
    open_client(page, served)
    events = page.evaluate(
        """() => {
          const out = [];
          const parser = window.tandaClient.sseParser((name, data) => out.push([name, data]));
          const chunks = ['event: a\\r', '\\ndata: {"x":', '1}\\r\\n\\r\\n',
            ': keep-alive\\n\\n', 'data: 1\\ndata:2\\n\\n', 'event: cut\\ndata: 9'];
          for (const chunk of chunks)
            parser.push(chunk);
          return out;
        }"""
    )
    assert events == [["a", '{"x":1}'], ["message", "1\n2"]]  # the cut-off event is dropped


def test_spans_that_cannot_be_placed_are_dropped_not_trusted(page: Page, served: Served) -> None:
    open_client(page, served)
    placed = page.evaluate(
        """() => {
          const text = "🎓 ab cd";  // the emoji is two UTF-16 code units
          const claim = (s, e) => ({start_utf16: s, end_utf16: e, verdict: "supported"});
          const r = window.tandaClient.placeSpans(text, {claims: [
            claim(1, 4),   // splits the surrogate pair
            claim(3, 5),   // "ab"
            claim(4, 7),   // overlaps "ab"
            claim(6, 8),   // "cd"
            claim(7, 99),  // beyond the text: still pending
            claim(5, 5),   // empty
          ], framing: []});
          return [r.spans.map(s => text.slice(s.start, s.end)), r.dropped, r.pending];
        }"""
    )
    assert placed == [["ab", "cd"], 3, 1]


# ------------------------------------------------------------------ the route


def test_the_page_and_its_assets_are_served_with_a_strict_policy(served: Served) -> None:
    index = httpx.get(f"{served.base_url}/", timeout=10)
    assert index.status_code == 200
    assert index.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in index.headers["content-security-policy"]
    script = httpx.get(f"{served.base_url}/static/app.js", timeout=10)
    assert script.headers["content-type"].startswith("text/javascript")
    assert httpx.get(f"{served.base_url}/static/../pyproject.toml", timeout=10).status_code == 404
    assert httpx.get(f"{served.base_url}/static/index.py", timeout=10).status_code == 404
