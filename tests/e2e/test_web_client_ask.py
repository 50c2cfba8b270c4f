"""The reference web client's ``/v1/ask`` mode in headless Chromium against the app with the
scripted model (ASK-05, ASK-10, ASK-12, issue 13): the dip key field, the answer exactly as the
route wrote it with every ``[S#]`` a chip opening its cited source, the truncation warning in
view, credit and model failures explained, and nothing that reads as verified."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from .conftest import Served

pytestmark = pytest.mark.e2e

QUESTION = "Berapa anggaran pendidikan 2023?"


def json_ask(served: Served, scenario: str, **body: Any) -> dict[str, Any]:
    response = httpx.post(
        f"{served.base_url}/v1/ask",
        json={"query": QUESTION, **body},
        headers={"Authorization": f"Bearer {served.v1_key}", "X-Tanda-Scenario": scenario},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    payload: dict[str, Any] = response.json()
    return payload


def open_ask_mode(page: Page, served: Served, key: str | None = None, **query: str) -> None:
    page.goto(f"{served.base_url}/?{urlencode({'mode': 'ask', **query})}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("body")).to_have_attribute("data-mode", "ask")
    expect(page.locator("#settings")).to_have_attribute("open", "")  # the dip key is missing
    page.fill("#v1-key", key or served.v1_key)


def ask(page: Page, question: str = QUESTION) -> Locator:
    before = page.locator(".turn").count()
    page.fill("#question", question)
    page.click("#ask")
    turn = page.locator(".turn").nth(before)
    expect(turn.locator(".answer")).not_to_have_attribute("data-state", "streaming", timeout=20000)
    return turn


def test_the_answer_is_the_routes_text_with_each_cited_marker_a_chip(
    page: Page, served: Served, screenshot: Any
) -> None:
    body = json_ask(served, "ask_invalid_citation")
    open_ask_mode(page, served, scenario="ask_invalid_citation")
    turn = ask(page)
    answer = turn.locator("[data-ask-answer]")

    # The text shown is exactly the answer (the unresolvable [S9] already removed by the server),
    expect(turn.locator(".answer")).to_have_attribute("data-state", "done")
    assert answer.text_content() == body["answer"]
    assert "[S9]" not in body["answer"]
    # every cited marker is a button, the only chips are the cited sources,
    chips = answer.locator("button.chip-source")
    expect(chips).to_have_count(body["answer"].count("[S1]"))
    assert {c["source_no"] for c in body["citations"]} == {1}
    expect(turn.locator(".sources li")).to_have_count(len(body["citations"]))
    # nothing reads as verified (the answer is not judged), and the summary says what was removed.
    expect(turn.locator(".mark-supported, .chip-proof")).to_have_count(0)
    expect(turn.locator(".ask-note")).to_contain_text("bukan verifikasi")
    expect(turn.locator(".summary")).to_contain_text("penanda tidak sah dihapus: 1")
    screenshot(page, "ask_invalid_citation")


def test_a_chip_opens_its_cited_source_by_keyboard(page: Page, served: Served) -> None:
    body = json_ask(served, "ask_default")
    (citation,) = body["citations"]
    open_ask_mode(page, served, scenario="ask_default")
    turn = ask(page)
    chip = turn.locator("[data-ask-answer] button.chip-source").first
    chip.focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#passage-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_have_attribute("data-key", "S1")
    assert page.locator("#passage-text").text_content() == citation["snippet"]
    identity = page.locator("#passage-identity").text_content() or ""
    assert citation["document_id"] in identity and citation["chunk_id"] in identity
    assert f"Halaman{citation['page_no']}" in identity.replace(" ", "")
    expect(page.locator("#passage-proof")).to_have_attribute("data-proof", "source")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()


def test_an_evidence_items_chip_opens_it_whole_with_its_layer_and_quote(
    page: Page, served: Served, screenshot: Any
) -> None:
    """ASK-08: a cited rule (reported by the server though not asked) opens whole."""
    question = "Siapa penerbit Faktur 12?"
    response = httpx.post(
        f"{served.base_url}/v1/ask",
        json={"query": question},
        headers={
            "Authorization": f"Bearer {served.evidence_v1_key}",
            "X-Tanda-Scenario": "ask_evidence",
        },
        timeout=30,
    )
    body = response.json()
    rule = next(c for c in body["citations"] if c.get("record_kind") == "rule")
    open_ask_mode(page, served, key=served.evidence_v1_key, scenario="ask_evidence")
    turn = ask(page, question)
    assert turn.locator("[data-ask-answer]").text_content() == body["answer"]
    expect(turn.locator(f'.sources li[data-source-no="{rule["source_no"]}"]')).to_contain_text(
        "rule · "
    )
    turn.locator(f'[data-ask-answer] button[data-source-no="{rule["source_no"]}"]').click()
    expect(page.locator("#passage-dialog")).to_be_visible()
    assert page.locator("#passage-text").text_content() == rule["text"]  # whole, not 200 chars
    identity = page.locator("#passage-identity").text_content() or ""
    assert "Lapisanrule" in identity and f"Simpul{rule['node_id']}" in identity
    assert f"Kutipan{rule['quote']}" in identity
    expect(page.locator("#passage-proof")).to_contain_text("bukan verifikasi")
    screenshot(page, "ask_evidence")
    page.keyboard.press("Escape")


def test_a_truncated_answer_keeps_its_warning_in_view(
    page: Page, served: Served, screenshot: Any
) -> None:
    body = json_ask(served, "ask_truncated", lang="id")
    assert body["truncated"] is True
    open_ask_mode(page, served, scenario="ask_truncated")
    page.select_option("#lang", "id")
    turn = ask(page)
    expect(turn.locator(".answer")).to_have_attribute("data-truncated", "true")
    expect(turn.locator(".banner[data-truncated]")).to_be_visible()
    assert turn.locator("[data-ask-answer]").text_content() == body["answer"]
    expect(turn.locator("[data-ask-answer]")).to_contain_text("Peringatan: Jawaban terpotong")
    expect(turn.locator(".summary")).to_contain_text("lang: id")
    screenshot(page, "ask_truncated")


def test_a_test_key_says_it_is_metered_not_charged_and_a_live_key_shows_the_charge(
    page: Page, served: Served
) -> None:
    open_ask_mode(page, served, scenario="ask_default")
    expect(ask(page).locator(".summary")).to_contain_text("kredit: 0.00 (kunci uji")
    page.fill("#v1-key", served.live_v1_key)
    expect(ask(page).locator(".summary")).to_contain_text("kredit: 0.20")


@pytest.mark.parametrize(
    ("scenario", "key", "message"),
    [
        ("ask_http_500", "v1_key", "Sintesis jawaban tidak tersedia saat ini; tidak ada biaya."),
        ("ask_default", "broke_v1_key", "Saldo kredit tidak cukup; tidak ada biaya."),
        ("ask_default", None, "Kunci /v1 ditolak."),
    ],
)
def test_refusals_are_explained_without_an_answer(
    page: Page,
    served: Served,
    page_errors: list[str],
    scenario: str,
    key: str | None,
    message: str,
) -> None:
    open_ask_mode(
        page, served, key=getattr(served, key) if key else "dip_live_unknown", scenario=scenario
    )
    turn = ask(page)
    expect(turn.locator(".answer")).to_have_attribute("data-state", "failed")
    expect(turn.locator(".error")).to_contain_text(message)
    expect(turn.locator("[data-ask-answer]")).to_have_count(0)
    # Chromium logs the refused fetch itself; only that may be in the console.
    assert all("Failed to load resource" in error for error in page_errors), page_errors
    page_errors.clear()


def test_the_dip_key_and_mode_stay_in_session_storage_only(page: Page, served: Served) -> None:
    open_ask_mode(page, served)
    page.select_option("#lang", "en")
    stored = page.evaluate(
        "() => [sessionStorage.getItem('tanda.v1Key'), sessionStorage.getItem('tanda.lang'),"
        " localStorage.length, document.cookie]"
    )
    assert stored == [served.v1_key, "en", 0, ""]
    page.click("#mode-v2")
    expect(page.locator("body")).to_have_attribute("data-mode", "v2")
    assert page.evaluate("() => sessionStorage.getItem('tanda.mode')") == "v2"


def test_the_marker_splitter_keeps_uncited_markers_as_text(page: Page, served: Served) -> None:
    page.goto(served.base_url)
    pieces = page.evaluate(
        "() => window.tandaClient.answerPieces('a [S1] b [S2][S1].', new Set([1]))"
    )
    assert pieces == [
        {"text": "a "},
        {"text": "[S1]", "sourceNo": 1},
        {"text": " b "},
        {"text": "[S2]"},
        {"text": "[S1]", "sourceNo": 1},
        {"text": "."},
    ]
