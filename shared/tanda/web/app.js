// tanda — reference client of POST /query/v2/stream, obeying the client contract (CC-1 … CC-6),
// and of POST /v1/ask (second mode: an answer citing its sources as [S#], docs/ask.md), with a
// documents panel over /v1/documents (issue 26: upload, status, delete; docs/documents.md).
//
// "terverifikasi" is the one positive state: only a `supported` claim, placed at its UTF-16
// offsets in the text that arrived, shows it. Anything the client cannot place or does not
// understand (no annotations frame, another schema, a span out of range, text outside every
// span) shows as "belum diverifikasi", and a banner stays whenever verification is not "full".
// Plain JavaScript, no build step, no dependency.
"use strict";

(() => {
  const SCHEMA = "annotate-v2";
  const DEFAULT_ENDPOINT = "/query/v2/stream";
  const UNVERIFIED = "belum diverifikasi";
  const STORE = {
    apiKey: "tanda.apiKey", jwt: "tanda.jwt", documents: "tanda.documentIds",
    v1Key: "tanda.v1Key", lang: "tanda.lang", mode: "tanda.mode",
  };
  const ASK_ENDPOINT = "/v1/ask";
  const MARKER = /\[S(\d+)\]/g;
  const VERDICTS = new Set([
    "supported", "unsupported", "unverified", "uncited", "invalid_citation", "from_conversation",
  ]);
  const REASONS = {
    deadline: "waktu permintaan habis",
    budget: "jatah panggilan model habis",
    judge_unavailable: "juri tidak tersedia",
    unparseable: "putusan juri tidak terbaca",
    disputed: "diperselisihkan",
  };
  const LAYOUT_ONLY = /^[ \n#\-|]*$/; // what the server writes between segments
  const TABLE_SEPARATOR = /^\|( *-{3,} *\|)+$/;

  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else if (name === "text") node.textContent = value;
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  };

  // ---------------------------------------------------------------- configuration

  const params = new URLSearchParams(window.location.search);

  /** The stream endpoint: `?endpoint=/path` (same origin only), else POST /query/v2/stream. */
  function streamEndpoint() {
    const value = params.get("endpoint");
    if (value && /^\/(?![/\\])[A-Za-z0-9._~\-/]*$/.test(value)) return value;
    return DEFAULT_ENDPOINT;
  }

  const state = {
    conversationId: null,
    turns: [],
    busy: false,
    controller: null,
    nextId: 1,
  };

  // ---------------------------------------------------------------- SSE, parsed by hand

  /** An incremental parser of text/event-stream (WHATWG HTML §9.2.6): `push` decoded text,
   * `onEvent(name, data)` for every complete event. An event cut off by the end of the stream
   * is discarded, as the standard says. */
  function sseParser(onEvent) {
    let buffer = "";
    let name = "";
    let data = [];
    const line = (text) => {
      if (text === "") {
        if (data.length) onEvent(name || "message", data.join("\n"));
        name = "";
        data = [];
        return;
      }
      if (text.startsWith(":")) return; // comment (keep-alive)
      const colon = text.indexOf(":");
      const field = colon < 0 ? text : text.slice(0, colon);
      let value = colon < 0 ? "" : text.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") name = value;
      else if (field === "data") data.push(value);
    };
    return {
      push(chunk) {
        buffer += chunk;
        for (;;) {
          const match = /\r\n|\n|\r/.exec(buffer);
          if (!match) return;
          // A CR at the very end may be the first half of CRLF: wait for more.
          if (match[0] === "\r" && match.index === buffer.length - 1) return;
          line(buffer.slice(0, match.index));
          buffer = buffer.slice(match.index + match[0].length);
        }
      },
    };
  }

  class HttpError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  async function postStream(endpoint, headers, body, onEvent, signal) {
    const response = await fetch(endpoint, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal,
      credentials: "omit",
      cache: "no-store",
    });
    if (!response.ok) {
      let code = "";
      let message = response.statusText;
      try {
        const error = (await response.json()).error || {};
        code = error.code || "";
        message = error.message || message;
      } catch (_) { /* not JSON */ }
      throw new HttpError(response.status, code, message);
    }
    const type = response.headers.get("content-type") || "";
    if (!type.startsWith("text/event-stream") || !response.body) {
      throw new HttpError(response.status, "not_a_stream", "Respons bukan text/event-stream.");
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder("utf-8");
    const parser = sseParser(onEvent);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
    parser.push(decoder.decode());
  }

  // ---------------------------------------------------------------- what may be trusted

  const isSurrogateSplit = (text, i) =>
    i > 0 && i < text.length &&
    /[\uD800-\uDBFF]/.test(text[i - 1]) && /[\uDC00-\uDFFF]/.test(text[i]);

  /** How this turn's answer may be shown, from what actually arrived (CC-1, CC-5). */
  function assess(turn) {
    const annotations = turn.annotations;
    if (turn.schema !== SCHEMA) return { mode: "schema", annotations: null };
    if (!annotations || typeof annotations !== "object") {
      return { mode: "missing", annotations: null };
    }
    if (annotations.mechanism !== undefined && annotations.mechanism !== SCHEMA) {
      return { mode: "schema", annotations: null };
    }
    return { mode: "annotated", annotations };
  }

  /** Claims and framing spans that can be placed in `text` (UTF-16 offsets = JS indexes), in
   * order, without overlap. Spans beyond the text are `pending` while it still streams;
   * anything else unplaceable is `dropped` — its text then shows unverified. */
  function placeSpans(text, annotations) {
    const candidates = [];
    const list = (value) => (Array.isArray(value) ? value : []);
    for (const claim of list(annotations && annotations.claims)) {
      candidates.push({ type: "claim", data: claim });
    }
    for (const framing of list(annotations && annotations.framing)) {
      candidates.push({ type: "framing", data: framing });
    }
    const spans = [];
    let dropped = 0;
    let pending = 0;
    for (const candidate of candidates) {
      const start = candidate.data && candidate.data.start_utf16;
      const end = candidate.data && candidate.data.end_utf16;
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end <= start) {
        dropped += 1;
        continue;
      }
      if (end > text.length) {
        pending += 1;
        continue;
      }
      if (isSurrogateSplit(text, start) || isSurrogateSplit(text, end)) {
        dropped += 1;
        continue;
      }
      spans.push({ ...candidate, start, end });
    }
    spans.sort((a, b) => a.start - b.start || a.end - b.end);
    const placed = [];
    let position = 0;
    for (const span of spans) {
      if (span.start < position) {
        dropped += 1; // overlapping: cannot be shown as one mark
        continue;
      }
      placed.push(span);
      position = span.end;
    }
    return { spans: placed, dropped, pending };
  }

  // ---------------------------------------------------------------- marks

  /** The mark of a claim (the same labels as `tanda ask` in a terminal, docs/cli.md). */
  function markOf(claim) {
    const invalid = Array.isArray(claim.invalid_citation_keys) ? claim.invalid_citation_keys : [];
    const keys = (Array.isArray(claim.citation_keys) ? claim.citation_keys : [])
      .filter((key) => !invalid.includes(key));
    switch (claim.verdict) {
      case "supported":
        return { kind: "supported", icon: "✓", label: "terverifikasi", keys, proof: true, invalid };
      case "unsupported":
        return {
          kind: "unsupported", icon: "✗", label: `${UNVERIFIED}: tidak didukung sumber`,
          keys, proof: false, invalid,
        };
      case "unverified": {
        const reason = claim.unverified_reason;
        const text = REASONS[reason] ? `${REASONS[reason]} (${reason})` : "alasan tidak diketahui";
        return {
          kind: "unverified", icon: "?", label: `${UNVERIFIED}: ${text}`,
          keys, proof: false, invalid,
        };
      }
      case "uncited":
        return { kind: "uncited", icon: "?", label: `${UNVERIFIED}: tanpa sumber`, keys: [],
          proof: false, invalid };
      case "invalid_citation":
        return {
          kind: "invalid", icon: "?",
          label: `${UNVERIFIED}: sitasi tidak dapat diselesaikan`, keys: [], proof: false,
          invalid: invalid.length ? invalid : (claim.citation_keys || []),
        };
      case "from_conversation":
        return { kind: "conversation", icon: "~", label: "dari percakapan, bukan dokumen",
          keys: [], proof: false, invalid: [] };
      default:
        return { kind: "unverified", icon: "?", label: UNVERIFIED, keys: [], proof: false,
          invalid: [] };
    }
  }

  function markElement(turn, mark, claimText, claimId) {
    const group = el("span", {
      class: `marks marks-${mark.kind}`, id: `${claimId}-mark`, "data-for": claimId,
    });
    group.append(el("span", {
      class: `mark mark-${mark.kind}`,
      "data-mark": mark.kind,
      role: "note",
      "aria-label": `Tanda: ${mark.label}`,
    }, el("span", { class: "icon", "aria-hidden": "true", text: mark.icon }),
    ` ${mark.label}`));
    for (const key of mark.keys) {
      const citation = turn.citations.get(key) || turn.passages.get(key) || {};
      const title = citation.document_title || citation.document_id || "";
      const chip = el("button", {
        type: "button",
        class: mark.proof ? "chip chip-proof" : "chip chip-not-proof",
        "data-key": key,
        "data-proof": mark.proof ? "true" : "false",
        "aria-label": `Buka sumber ${key}${title ? `: ${title}` : ""} — ${
          mark.proof ? "bukti klaim terverifikasi" : "bukan bukti"}`,
      }, mark.proof ? key : `${key} · bukan bukti`);
      chip.addEventListener("click", () => openPassage(turn, key, mark.proof, claimText));
      group.append(chip);
    }
    if (mark.invalid.length) {
      group.append(el("span", {
        class: "unresolvable",
        "data-invalid-keys": mark.invalid.join(" "),
        text: `${mark.invalid.join(", ")} tidak dapat diselesaikan`,
      }));
    }
    return group;
  }

  function uncoveredMark(turn) {
    const label = turn.annotations && turn.annotations.checked === false
      ? `${UNVERIFIED} · belum diperiksa` : UNVERIFIED;
    return el("span", { class: "marks marks-uncovered" }, el("span", {
      class: "mark mark-uncovered", "data-mark": "uncovered", role: "note",
      "aria-label": `Tanda: ${label}`,
    }, el("span", { class: "icon", "aria-hidden": "true", text: "?" }), ` ${label}`));
  }

  // ---------------------------------------------------------------- answer → DOM

  /** Lines of `text` as Markdown blocks whose server-written layout (`## `, `- `, table pipes,
   * the separator row) is not inside any span. `null` when a span crosses a line: then the
   * answer is shown as plain text, so that every span stays one element. */
  function blocksOf(text, spans) {
    const covered = new Uint8Array(text.length);
    for (const span of spans) {
      if (text.slice(span.start, span.end).includes("\n")) return null;
      covered.fill(1, span.start, span.end);
    }
    const free = (a, b) => covered.subarray(a, b).every((c) => c === 0);
    const blocks = [];
    let lineStart = 0;
    for (;;) {
      let lineEnd = text.indexOf("\n", lineStart);
      if (lineEnd < 0) lineEnd = text.length;
      const line = text.slice(lineStart, lineEnd);
      const block = (type, a, b) => blocks.push({ type, start: a, end: b });
      if (line.trim() === "" && free(lineStart, lineEnd)) block("blank", lineStart, lineEnd);
      else if (line.startsWith("## ") && free(lineStart, lineStart + 3)) {
        block("heading", lineStart + 3, lineEnd);
      } else if (line.startsWith("- ") && free(lineStart, lineStart + 2)) {
        block("item", lineStart + 2, lineEnd);
      } else if (line.length >= 4 && line.startsWith("| ") && line.endsWith(" |") &&
                 free(lineStart, lineStart + 2) && free(lineEnd - 2, lineEnd)) {
        if (free(lineStart, lineEnd) && TABLE_SEPARATOR.test(line)) {
          block("separator", lineStart, lineEnd);
        } else block("row", lineStart + 2, lineEnd - 2);
      } else block("line", lineStart, lineEnd);
      if (lineEnd >= text.length) break;
      lineStart = lineEnd + 1;
    }
    return blocks;
  }

  function spanElement(turn, span, text, tableColumns) {
    const data = span.data;
    const content = text.slice(span.start, span.end);
    const common = {
      "data-start": span.start,
      "data-end": span.end,
      "data-start-cp": Number.isInteger(data.start) ? data.start : null,
      "data-end-cp": Number.isInteger(data.end) ? data.end : null,
      "data-layout": data.layout || null,
    };
    let node;
    if (span.type === "claim") {
      const mark = markOf(data);
      turn.claimCount += 1;
      const id = `claim-${turn.id}-${turn.claimCount}`;
      node = el("span", {
        ...common,
        id,
        "aria-describedby": `${id}-mark`,
        class: `span claim claim-${mark.kind}`,
        "data-claim": true,
        "data-verdict": String(data.verdict),
        "data-reason": data.unverified_reason || null,
        "data-kind": data.kind || null,
      });
    } else {
      node = el("span", { ...common, class: "span framing", "data-framing": true });
    }
    if (tableColumns) fillCells(node, content, tableColumns);
    else node.textContent = content;
    return node;
  }

  /** A table row's span as grid cells; the `|` between cells stays in the text (hidden), so
   * the element's textContent is still exactly the span's text. */
  function fillCells(node, content, columns) {
    node.classList.add("cells");
    node.style.gridTemplateColumns = `repeat(${columns}, minmax(0, 1fr))`;
    let cell = "";
    for (let i = 0; i < content.length; i += 1) {
      const ch = content[i];
      if (ch === "|" && content[i - 1] !== "\\") {
        node.append(el("span", { class: "cell", text: cell }));
        node.append(el("span", { class: "cell-separator", text: "|" }));
        cell = "";
      } else cell += ch;
    }
    node.append(el("span", { class: "cell", text: cell }));
  }

  /** Text of [a, b) with its spans, marks after claims, uncovered text marked unverified. */
  function renderRange(turn, text, spans, a, b, into, options = {}) {
    const marks = options.marksInto || into;
    let position = a;
    const gap = (start, end) => {
      if (end <= start) return;
      const piece = text.slice(start, end);
      if (LAYOUT_ONLY.test(piece)) {
        into.append(piece);
        return;
      }
      const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(piece);
      const coreStart = start + match[1].length;
      const coreEnd = coreStart + match[2].length;
      if (match[1]) into.append(match[1]);
      into.append(el("span", {
        class: "span uncovered", "data-uncovered": true, "data-start": coreStart,
        "data-end": coreEnd, text: match[2],
      }));
      marks.append(" ", uncoveredMark(turn));
      if (match[3]) into.append(match[3]);
    };
    for (const span of spans) {
      if (span.end <= a || span.start >= b) continue;
      gap(position, span.start);
      const node = spanElement(turn, span, text, options.tableColumns);
      into.append(node);
      if (span.type === "claim") {
        marks.append(" ", markElement(turn, markOf(span.data), node.textContent, node.id));
      }
      position = span.end;
    }
    gap(position, b);
  }

  function renderAnswer(turn, text, spans) {
    const body = el("div", { class: "answer-text" });
    const blocks = blocksOf(text, spans);
    if (blocks === null) {
      const plain = el("p", { class: "plain" });
      renderRange(turn, text, spans, 0, text.length, plain);
      body.append(plain);
      return body;
    }
    let paragraph = null;
    let list = null;
    let table = null;
    for (const block of blocks) {
      if (block.type !== "line") paragraph = null;
      if (block.type !== "item") list = null;
      if (block.type !== "row" && block.type !== "separator") table = null;
      switch (block.type) {
        case "blank":
          break;
        case "heading": {
          const heading = el("h3", { class: "md-heading" });
          renderRange(turn, text, spans, block.start, block.end, heading);
          body.append(heading);
          break;
        }
        case "item": {
          if (!list) {
            list = el("ul", { class: "md-list" });
            body.append(list);
          }
          const item = el("li");
          renderRange(turn, text, spans, block.start, block.end, item);
          list.append(item);
          break;
        }
        case "separator":
          if (table) table.headerDone = true;
          break;
        case "row": {
          if (!table) {
            const node = el("table", { class: "md-table" });
            table = { node, body: el("tbody"), headerDone: false, columns: 0 };
            node.append(table.body);
            body.append(node);
          }
          const inside = spans.filter((s) => s.start >= block.start && s.end <= block.end);
          const whole = inside.length === 1 && inside[0].start === block.start &&
            inside[0].end === block.end;
          const cells = whole ? cellCount(text.slice(block.start, block.end)) : 0;
          if (!table.columns && cells) table.columns = cells;
          const row = el("tr", { class: table.headerDone ? "md-row" : "md-row md-header" });
          const content = el("td", { class: "md-cells" });
          const marks = el("td", { class: "md-marks" });
          renderRange(turn, text, spans, block.start, block.end, content, {
            marksInto: marks,
            tableColumns: whole ? Math.max(cells, table.columns) : 0,
          });
          row.append(content, marks);
          table.body.append(row);
          break;
        }
        default: {
          if (paragraph) paragraph.append(el("br"));
          else {
            paragraph = el("p");
            body.append(paragraph);
          }
          renderRange(turn, text, spans, block.start, block.end, paragraph);
        }
      }
    }
    return body;
  }

  function cellCount(content) {
    let count = 1;
    for (let i = 0; i < content.length; i += 1) {
      if (content[i] === "|" && content[i - 1] !== "\\") count += 1;
    }
    return count;
  }

  // ---------------------------------------------------------------- banner and summary

  function bannerOf(turn, trust, placement) {
    const lines = [];
    const a = trust.annotations;
    const streaming = !turn.ended;
    if (trust.mode === "schema" && (turn.answer || turn.ended)) {
      const schema = turn.schema === null ? "tidak ada" : turn.schema;
      lines.push(`Skema anotasi tidak dikenal (${schema}): seluruh jawaban belum diverifikasi.`);
    } else if (trust.mode === "missing" && (turn.answer || turn.ended)) {
      lines.push(streaming
        ? "Anotasi belum diterima: jawaban belum diverifikasi."
        : "Anotasi tidak diterima: seluruh jawaban belum diverifikasi.");
    } else if (trust.mode === "annotated") {
      if (a.checked === false) {
        lines.push("Belum diperiksa: bahan sumber tidak muat dalam konteks model; " +
          "tidak ada yang diperiksa.");
      } else if (a.fallback_used) {
        lines.push(`Penolakan (${a.fallback_reason || "?"}) — bukan tanda kepercayaan; ` +
          "tidak ada yang terverifikasi.");
      }
      if (a.verification !== "full") {
        lines.push(`Jawaban ini belum sepenuhnya terverifikasi (verification: ${
          a.verification || "tidak ada"}). Hanya bagian bertanda ✓ terverifikasi yang ` +
          "didukung sumber.");
      }
      if (placement.dropped || (turn.ended && placement.pending) || placement.uncovered) {
        lines.push("Sebagian teks tidak tertutup tanda yang dapat ditempatkan: " +
          "bagian itu belum diverifikasi.");
      }
    }
    if (turn.error) lines.push("Stream berakhir dengan galat; tanda hanya berlaku untuk teks " +
      "yang sudah diterima.");
    else if (turn.ended && !turn.done && !turn.httpError) {
      lines.push("Stream terputus sebelum selesai.");
    }
    return lines;
  }

  function summaryOf(trust) {
    if (trust.mode !== "annotated") return "Tanpa anotasi yang dapat dipakai.";
    const a = trust.annotations;
    const g = a.grounding || {};
    const rate = typeof g.grounding_rate === "number"
      ? `${Math.round(g.grounding_rate * 100)}%` : "—";
    return `verification: ${a.verification} · ${g.claims_supported ?? "?"}/${
      g.claims_total ?? "?"} klaim terverifikasi (grounding ${rate}) · juri: ${
      a.judge_status} · pembingkai: ${a.framing_check}` +
      (a.checked === false ? " · belum diperiksa" : "");
  }

  // ---------------------------------------------------------------- one turn

  function newTurn(question) {
    const id = state.nextId;
    state.nextId += 1;
    const turn = {
      id, question, schema: null, conversationId: null, messageId: null, traceId: null,
      citations: new Map(), passages: new Map(), guardBlocked: false, annotations: null,
      answer: "", done: null, error: null, httpError: null, ended: false, progress: "",
      scheduled: false, frame: 0,
    };
    const answer = el("article", {
      class: "answer", "aria-busy": "true", "data-state": "streaming",
      "aria-label": "Jawaban",
    });
    turn.nodes = {
      answer,
      banner: el("div", { class: "banner", role: "status", hidden: true }),
      progress: el("p", { class: "progress", text: "Menunggu jawaban…" }),
      body: el("div", { class: "answer-body" }),
      summary: el("p", { class: "summary" }),
      error: el("p", { class: "error", role: "alert", hidden: true }),
    };
    answer.append(turn.nodes.banner, turn.nodes.progress, turn.nodes.body, turn.nodes.summary,
      turn.nodes.error);
    const item = el("li", { class: "turn", "data-turn": id },
      el("div", { class: "question" }, el("span", { class: "who", text: "Anda" }),
        el("p", { text: question })),
      answer);
    $("turns").append(item);
    turn.nodes.item = item;
    return turn;
  }

  function schedule(turn) {
    if (turn.scheduled) return;
    turn.scheduled = true;
    turn.frame = window.requestAnimationFrame(() => {
      turn.scheduled = false;
      render(turn);
    });
  }

  // The last render of a turn is synchronous; a render still waiting for its animation frame
  // would replace the finished answer's nodes once more (and the chip a reader just focused).
  function unschedule(turn) {
    if (!turn.scheduled) return;
    window.cancelAnimationFrame(turn.frame);
    turn.scheduled = false;
  }

  // A chip keeps the keyboard focus across a render: the answer's nodes are rebuilt on every
  // frame while it streams, and a reader tabbing through the sources must not be sent back to
  // the top of the page.
  function focusedKey(container) {
    const focused = document.activeElement;
    if (!focused || !container.contains(focused) || !focused.dataset.key) return null;
    return { tag: focused.tagName, className: focused.className, key: focused.dataset.key };
  }

  function refocus(container, was) {
    if (!was) return;
    for (const candidate of container.querySelectorAll("[data-key]")) {
      if (candidate.tagName === was.tag && candidate.className === was.className &&
          candidate.dataset.key === was.key) {
        candidate.focus();
        return;
      }
    }
  }

  function render(turn) {
    const nodes = turn.nodes;
    const trust = assess(turn);
    const text = turn.answer;
    const placement = trust.mode === "annotated"
      ? placeSpans(text, trust.annotations) : { spans: [], dropped: 0, pending: 0 };
    turn.claimCount = 0;
    const answerNode = renderAnswer(turn, text, placement.spans);
    placement.uncovered = trust.mode === "annotated" &&
      answerNode.querySelector("[data-uncovered]") !== null && !trust.annotations.fallback_used;
    const focused = focusedKey(nodes.body);
    nodes.body.replaceChildren(answerNode);
    refocus(nodes.body, focused);

    const banner = bannerOf(turn, trust, placement);
    nodes.banner.replaceChildren(...banner.map((line) =>
      el("p", {}, el("span", { class: "icon", "aria-hidden": "true", text: "⚠ " }), line)));
    nodes.banner.hidden = banner.length === 0;
    if (trust.mode === "annotated" && trust.annotations.checked === false) {
      nodes.banner.dataset.checked = "false";
    }

    nodes.answer.dataset.trust = trust.mode;
    nodes.answer.dataset.verification =
      trust.mode === "annotated" ? String(trust.annotations.verification) : "none";
    nodes.answer.dataset.answerLength = String(text.length);
    nodes.summary.textContent = turn.ended || trust.mode === "annotated" ? summaryOf(trust) : "";
    nodes.progress.textContent = turn.ended ? "" : turn.progress || "Menunggu jawaban…";
    nodes.progress.hidden = turn.ended;
    if (turn.error || turn.httpError) {
      const error = turn.error || turn.httpError;
      nodes.error.hidden = false;
      nodes.error.textContent = error;
    }
    if (turn.ended) {
      nodes.answer.setAttribute("aria-busy", "false");
      nodes.answer.dataset.state = turn.httpError ? "failed" : turn.done ? "done" : "ended";
    }
  }

  function onFrame(turn, name, raw) {
    let data;
    try {
      data = JSON.parse(raw);
    } catch (_) {
      return; // an unreadable frame adds nothing; what it would have said stays unverified
    }
    switch (name) {
      case "tool.started":
        turn.progress = `Mencari di sumber… (${data.tool || "alat"})`;
        break;
      case "tool.finished":
        turn.progress = `${data.tool || "alat"}: ${data.result_count ?? 0} hasil (${
          data.status || "?"})`;
        break;
      case "message.start":
        turn.schema = typeof data.schema === "string" ? data.schema : null;
        turn.conversationId = data.conversation_id || null;
        turn.messageId = data.message_id || null;
        if (turn.conversationId) setConversation(turn.conversationId);
        turn.progress = "Menerima jawaban…";
        break;
      case "trace":
        turn.traceId = data.trace_id || null;
        break;
      case "citation":
        if (data.citation_key) turn.citations.set(data.citation_key, data);
        break;
      case "passage":
        if (data.citation_key) turn.passages.set(data.citation_key, data);
        break;
      case "guard.blocked":
        turn.guardBlocked = true;
        break;
      case "annotations":
        if (turn.annotations === null) turn.annotations = data;
        break;
      case "answer.delta":
        if (typeof data.text === "string") turn.answer += data.text;
        break;
      case "done":
        turn.done = data;
        break;
      case "error":
        turn.error = `Galat: ${data.message || "?"} (${data.code || "?"})`;
        break;
      default:
        return;
    }
    schedule(turn);
  }

  function httpMessage(error) {
    if (!(error instanceof HttpError)) return `Koneksi gagal: ${error.message || error}`;
    const known = {
      401: "Kunci API diperlukan (X-API-Key).",
      403: "Kredensial ditolak: periksa kunci API dan token (mungkin kedaluwarsa).",
      409: "Percakapan ini milik rute lain; mulai percakapan baru.",
      422: "Permintaan tidak valid.",
    };
    if (error.code === "conversation_not_found") {
      return "Percakapan tidak ditemukan; mulai percakapan baru.";
    }
    if (error.code === "unknown_scenario") return "Skenario tidak dikenal.";
    return `${known[error.status] || `Galat ${error.status}: ${error.message}`} (${
      error.code || error.status})`;
  }

  // ---------------------------------------------------------------- passages

  function openPassage(turn, key, proof, claimText) {
    const passage = turn.passages.get(key);
    const citation = turn.citations.get(key) || {};
    const source = { ...citation, ...(passage || {}) };
    $("passage-title").textContent = `Sumber ${key}${
      source.document_title ? ` — ${source.document_title}` : ""}`;
    $("passage-proof").textContent = proof
      ? `Juri menilai passage ini mendukung klaim: “${claimText}”`
      : `Bukan bukti: juri tidak menilai klaim “${claimText}” didukung passage ini.`;
    $("passage-proof").dataset.proof = proof ? "true" : "false";
    const identity = $("passage-identity");
    identity.replaceChildren();
    const rows = [
      ["Dokumen", source.document_title],
      ["Rujukan", source.legal_reference],
      ["ID dokumen", source.document_id],
      ["Halaman", source.page_no],
      ["Bagian", source.section],
      ["Potongan", source.chunk_id],
      ["Alat", source.tool],
    ];
    for (const [label, value] of rows) {
      if (value === null || value === undefined || value === "") continue;
      identity.append(el("dt", { text: label }), el("dd", { text: String(value) }));
    }
    $("passage-text").textContent = passage && typeof passage.text === "string"
      ? passage.text : "Passage untuk kunci ini tidak diterima dalam stream.";
    $("passage-dialog").dataset.key = key;
    $("passage-dialog").showModal();
    $("passage-close").focus();
  }

  // ---------------------------------------------------------------- the form

  function setConversation(id) {
    state.conversationId = id;
    $("conversation-info").textContent = id
      ? `Percakapan ${id} — pertanyaan berikutnya melanjutkannya.` : "Percakapan baru.";
    $("conversation-info").dataset.conversationId = id || "";
  }

  function requestHeaders() {
    const headers = { "Content-Type": "application/json", Accept: "text/event-stream" };
    const key = $("api-key").value.trim();
    const jwt = $("jwt").value.trim();
    if (key) headers["X-API-Key"] = key;
    if (jwt) headers.Authorization = `Bearer ${jwt}`;
    const scenario = $("scenario").value.trim();
    if (scenario) headers["X-Tanda-Scenario"] = scenario;
    return headers;
  }

  function requestBody(question) {
    const body = { query: question };
    if (state.conversationId) body.conversation_id = state.conversationId;
    const ids = $("document-ids").value.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
    if (ids.length) body.document_ids = ids;
    return body;
  }

  async function ask(question) {
    if (state.busy) return;
    state.busy = true;
    $("ask").disabled = true;
    $("status").textContent = "Memproses…";
    const turn = newTurn(question);
    state.turns.push(turn);
    const controller = new AbortController();
    state.controller = controller;
    try {
      await postStream(streamEndpoint(), requestHeaders(), requestBody(question),
        (name, data) => onFrame(turn, name, data), controller.signal);
    } catch (error) {
      if (error instanceof HttpError) turn.httpError = httpMessage(error);
      else if (error.name !== "AbortError") turn.error = httpMessage(error);
    } finally {
      turn.ended = true;
      unschedule(turn);
      render(turn);
      state.busy = false;
      state.controller = null;
      $("ask").disabled = false;
      $("status").textContent = turn.httpError ? "Gagal." : "Selesai.";
    }
  }

  // ---------------------------------------------------------------- /v1/ask mode

  function currentMode() {
    return $("mode-ask").checked ? "ask" : "v2";
  }

  /** The credentials this mode needs: the settings open while any is missing. */
  function showMode() {
    const missing = currentMode() === "ask"
      ? !$("v1-key").value
      : !$("api-key").value || !$("jwt").value;
    if (missing) $("settings").open = true;
    document.body.dataset.mode = currentMode();
  }

  /** `answer` as text pieces and `[S#]` markers; a marker is a source only when `cited` has
   * its number (the server lists every source the answer cites, ASK-05). */
  function answerPieces(answer, cited) {
    const pieces = [];
    let position = 0;
    for (const match of answer.matchAll(MARKER)) {
      if (match.index > position) pieces.push({ text: answer.slice(position, match.index) });
      const sourceNo = Number(match[1]);
      pieces.push(cited.has(sourceNo) ? { text: match[0], sourceNo } : { text: match[0] });
      position = match.index + match[0].length;
    }
    if (position < answer.length) pieces.push({ text: answer.slice(position) });
    return pieces;
  }

  function sourcePlace(citation) {
    return [
      citation.record_kind, // an evidence item's structure layer (ASK-08)
      citation.document_id,
      citation.page_no !== null && citation.page_no !== undefined ? `hlm. ${citation.page_no}` : null,
      citation.section,
    ].filter(Boolean).join(" · ");
  }

  function sourceChip(citation) {
    const chip = el("button", {
      type: "button",
      class: "chip chip-source",
      "data-source-no": citation.source_no,
      "aria-label": `Buka sumber S${citation.source_no}: ${sourcePlace(citation)} — sumber ` +
        "yang dirujuk, bukan verifikasi",
    }, `[S${citation.source_no}]`);
    chip.addEventListener("click", () => openSource(citation));
    return chip;
  }

  function openSource(citation) {
    $("passage-title").textContent = `Sumber S${citation.source_no} — ${citation.document_id}`;
    // ASK-08: an evidence item is shown whole, as the model saw it, with the document's quote.
    const evidence = typeof citation.text === "string";
    $("passage-proof").textContent = (evidence
      ? "Butir bukti dari struktur dokumen yang dirujuk jawaban /v1/ask, utuh, dengan kutipan " +
        "dokumennya."
      : "Sumber yang dirujuk jawaban /v1/ask, dengan cuplikan 200 karakter pertamanya.") +
      " Jawaban ini tidak diperiksa juri: ini bukan verifikasi.";
    $("passage-proof").dataset.proof = "source";
    const identity = $("passage-identity");
    identity.replaceChildren();
    for (const [label, value] of [
      ["ID dokumen", citation.document_id],
      ["Rujukan eksternal", citation.external_item_ref],
      ["Halaman", citation.page_no],
      ["Bagian", citation.section],
      ["Potongan", citation.chunk_id],
      ["Jenis", citation.kind],
      ["Lapisan", citation.record_kind],
      ["Simpul", citation.node_id],
      ["Kutipan", citation.quote],
    ]) {
      if (value === null || value === undefined || value === "") continue;
      identity.append(el("dt", { text: label }), el("dd", { text: String(value) }));
    }
    const shown = evidence ? citation.text : citation.snippet;
    $("passage-text").textContent = typeof shown === "string" ? shown : "";
    $("passage-dialog").dataset.key = `S${citation.source_no}`;
    $("passage-dialog").showModal();
    $("passage-close").focus();
  }

  function newAskTurn(question) {
    const id = state.nextId;
    state.nextId += 1;
    const answer = el("article", {
      class: "answer", "aria-busy": "true", "data-state": "streaming", "data-route": "ask",
      "aria-label": "Jawaban /v1/ask",
    });
    answer.append(el("p", { class: "progress", text: "Menunggu jawaban…" }));
    const item = el("li", { class: "turn", "data-turn": id },
      el("div", { class: "question" }, el("span", { class: "who", text: "Anda" }),
        el("p", { text: question })),
      answer);
    $("turns").append(item);
    return { id, answer };
  }

  function renderAskAnswer(turn, body) {
    const citations = Array.isArray(body.citations) ? body.citations : [];
    const byNo = new Map(citations.map((c) => [c.source_no, c]));
    const nodes = [];
    if (body.truncated === true) {
      // ASK-10: the warning is in the text too; the banner keeps it in view.
      nodes.push(el("div", { class: "banner", role: "status", "data-truncated": "true" },
        el("p", {}, el("span", { class: "icon", "aria-hidden": "true", text: "⚠ " }),
          "Jawaban terpotong pada batas keluaran: mungkin tidak lengkap (truncated).")));
    }
    nodes.push(el("p", {
      class: "ask-note", role: "note",
      text: "Jawaban /v1/ask tidak diperiksa juri: [S#] menunjukkan sumber yang dirujuk, " +
        "bukan verifikasi.",
    }));
    const text = el("p", { class: "ask-answer", "data-ask-answer": true });
    for (const piece of answerPieces(String(body.answer || ""), new Set(byNo.keys()))) {
      text.append(piece.sourceNo === undefined ? piece.text : sourceChip(byNo.get(piece.sourceNo)));
    }
    nodes.push(text);
    if (citations.length) {
      const list = el("ol", { class: "sources", "aria-label": "Sumber yang dirujuk" });
      for (const citation of citations) {
        list.append(el("li", { "data-source-no": citation.source_no }, sourceChip(citation),
          sourcePlace(citation)));
      }
      nodes.push(list);
    }
    const usage = body.usage || {};
    nodes.push(el("p", {
      class: "summary",
      text: `lang: ${body.lang} · sumber ditampilkan: ${usage.sources_shown ?? "?"} · dirujuk: ${
        citations.length} · penanda tidak sah dihapus: ${usage.invalid_citations ?? 0} · ` +
        `panggilan model: ${usage.model_calls ?? "?"} · kredit: ${usage.credits_charged ?? "?"}` +
        (usage.test_key ? " (kunci uji: dihitung, tidak ditagih)" : ""),
    }));
    turn.answer.replaceChildren(...nodes);
    turn.answer.dataset.truncated = body.truncated === true ? "true" : "false";
  }

  function askErrorMessage(status, code, message, retryAfter) {
    const known = {
      insufficient_credit: "Saldo kredit tidak cukup; tidak ada biaya.",
      rate_limited: `Terlalu banyak permintaan; coba lagi dalam ${retryAfter || "beberapa"} detik.`,
      rag_unavailable: "Sintesis jawaban tidak tersedia saat ini; tidak ada biaya.",
      missing_api_key: "Kunci /v1 diperlukan (Authorization: Bearer dip_…).",
      invalid_api_key: "Kunci /v1 ditolak.",
      validation_error: "Permintaan tidak valid.",
      unknown_scenario: "Skenario tidak dikenal.",
    };
    return `${known[code] || `Galat ${status}: ${message}`} (${code || status})`;
  }

  async function askV1(question) {
    if (state.busy) return;
    const ids = $("document-ids").value.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
    if (ids.length > 1) {
      $("status").textContent = "Mode /v1/ask menerima satu ID dokumen.";
      return;
    }
    state.busy = true;
    $("ask").disabled = true;
    $("status").textContent = "Memproses…";
    const turn = newAskTurn(question);
    const body = { query: question };
    if (ids.length) body.document_id = ids[0];
    if ($("lang").value) body.lang = $("lang").value;
    const headers = { "Content-Type": "application/json", Accept: "application/json" };
    const key = $("v1-key").value.trim();
    if (key) headers.Authorization = `Bearer ${key}`;
    const scenario = $("scenario").value.trim();
    if (scenario) headers["X-Tanda-Scenario"] = scenario;
    let failed = true;
    try {
      const response = await fetch(ASK_ENDPOINT, {
        method: "POST", headers, body: JSON.stringify(body), credentials: "omit",
        cache: "no-store",
      });
      let payload = null;
      try {
        payload = await response.json();
      } catch (_) { /* not JSON */ }
      if (response.ok && payload) {
        renderAskAnswer(turn, payload);
        failed = false;
      } else {
        const error = (payload && payload.error) || {};
        turn.answer.replaceChildren(el("p", {
          class: "error", role: "alert",
          text: askErrorMessage(response.status, error.code || "", error.message ||
            response.statusText, response.headers.get("retry-after")),
        }));
      }
    } catch (error) {
      turn.answer.replaceChildren(el("p", {
        class: "error", role: "alert", text: `Koneksi gagal: ${error.message || error}`,
      }));
    } finally {
      turn.answer.setAttribute("aria-busy", "false");
      turn.answer.dataset.state = failed ? "failed" : "done";
      state.busy = false;
      $("ask").disabled = false;
      $("status").textContent = failed ? "Gagal." : "Selesai.";
    }
  }

  // ---------------------------------------------------------------- documents (issue 26)

  const DOCUMENTS_ENDPOINT = "/v1/documents";
  const ONE_REQUEST_BYTES = 4 * 1024 * 1024; // a multipart POST takes at most this much
  const STATUS_WORDS = {
    awaiting_upload: "menunggu berkas", queued: "antre", processing: "diproses",
    indexed: "terindeks", skipped: "dilewati", failed: "gagal", deleting: "dihapus",
  };
  const OPEN_STATUSES = new Set(["awaiting_upload", "queued", "processing", "deleting"]);
  const docs = { timer: null };

  function v1Headers() {
    const key = $("v1-key").value.trim();
    return key ? { Authorization: `Bearer ${key}` } : {};
  }

  async function errorText(response) {
    let error = {};
    try {
      error = ((await response.json()) || {}).error || {};
    } catch (_) { /* not JSON */ }
    const supported = Array.isArray(error.supported) ? ` Yang diterima: ${error.supported.join("; ")}.` : "";
    return `${error.message || response.statusText} (${response.status}${error.code ? ` ${error.code}` : ""}).${supported}`;
  }

  function documentRow(doc) {
    const status = el("span", {
      class: "doc-status", "data-status": doc.status, text: STATUS_WORDS[doc.status] || doc.status,
    });
    if (doc.reason) status.append(el("span", { class: "doc-reason", text: doc.reason }));
    const remove = el("button", {
      type: "button", class: "secondary", text: "Hapus", "aria-label": `Hapus ${doc.filename}`,
    });
    remove.addEventListener("click", () => deleteDocument(doc));
    return el("tr", { "data-document-id": doc.document_id, "data-status": doc.status },
      el("td", { text: doc.filename }), el("td", {}, status),
      el("td", { text: doc.batch_id || "—" }), el("td", { text: doc.indexed_at || "—" }),
      el("td", {}, remove));
  }

  async function loadDocuments() {
    clearTimeout(docs.timer);
    if (!$("v1-key").value.trim()) {
      $("documents-status").textContent = "Isi kunci /v1 di Kredensial dulu.";
      return;
    }
    let response;
    try {
      response = await fetch(`${DOCUMENTS_ENDPOINT}?limit=200`, {
        headers: v1Headers(), credentials: "omit", cache: "no-store",
      });
    } catch (error) {
      $("documents-status").textContent = `Koneksi gagal: ${error.message || error}`;
      return;
    }
    if (!response.ok) {
      $("documents-status").textContent = await errorText(response);
      return;
    }
    const listed = (await response.json()).documents || [];
    $("document-list").replaceChildren(...listed.map(documentRow));
    $("document-table").dataset.count = String(listed.length);
    if (listed.some((doc) => OPEN_STATUSES.has(doc.status))) {
      docs.timer = setTimeout(loadDocuments, 1000); // until every upload has settled
    }
  }

  /** One file: a multipart POST when it is small, else an upload started with JSON and its
   * bytes sent to the URL the 201 gives (a PUT embedded; a presigned POST form on AWS). */
  async function uploadOne(file, batch) {
    const headers = v1Headers();
    if (file.size <= ONE_REQUEST_BYTES) {
      const form = new FormData();
      form.append("file", file, file.name);
      if (batch) form.append("batch_id", batch);
      const response = await fetch(DOCUMENTS_ENDPOINT, {
        method: "POST", headers, body: form, credentials: "omit", cache: "no-store",
      });
      return response.ok ? null : `${file.name}: ${await errorText(response)}`;
    }
    const body = {
      filename: file.name, content_type: file.type || "application/octet-stream",
      size_bytes: file.size, ...(batch ? { batch_id: batch } : {}),
    };
    const started = await fetch(DOCUMENTS_ENDPOINT, {
      method: "POST", headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify(body), credentials: "omit", cache: "no-store",
    });
    if (!started.ok) return `${file.name}: ${await errorText(started)}`;
    const { upload } = await started.json();
    if (!upload) return null; // the tenant holds these bytes already
    let sent;
    if (upload.method === "PUT") {
      sent = await fetch(upload.url, {
        method: "PUT", headers: upload.headers, body: file, credentials: "omit",
      });
    } else {
      const form = new FormData();
      for (const [name, value] of Object.entries(upload.fields || {})) form.append(name, value);
      form.append("file", file, file.name);
      sent = await fetch(upload.url, { method: "POST", body: form, credentials: "omit" });
    }
    return sent.ok ? null : `${file.name}: ${await errorText(sent)}`;
  }

  async function uploadDocuments(event) {
    event.preventDefault();
    const files = Array.from($("upload-file").files || []);
    if (!files.length) {
      $("documents-status").textContent = "Pilih berkas dulu.";
      return;
    }
    if (!$("v1-key").value.trim()) {
      $("documents-status").textContent = "Isi kunci /v1 di Kredensial dulu.";
      return;
    }
    $("upload").disabled = true;
    $("documents-status").textContent = "Mengunggah…";
    const problems = [];
    for (const file of files) {
      try {
        const problem = await uploadOne(file, $("upload-batch").value.trim());
        if (problem) problems.push(problem);
      } catch (error) {
        problems.push(`${file.name}: koneksi gagal (${error.message || error})`);
      }
    }
    $("upload").disabled = false;
    $("upload-file").value = "";
    $("documents-status").textContent = problems.length ? problems.join(" ") : "Terunggah.";
    await loadDocuments();
  }

  async function deleteDocument(doc) {
    const response = await fetch(`${DOCUMENTS_ENDPOINT}/${encodeURIComponent(doc.document_id)}`, {
      method: "DELETE", headers: v1Headers(), credentials: "omit", cache: "no-store",
    });
    $("documents-status").textContent = response.ok
      ? `${doc.filename} dihapus.` : await errorText(response);
    await loadDocuments();
  }

  function init() {
    for (const [id, key] of [["api-key", STORE.apiKey], ["jwt", STORE.jwt],
      ["document-ids", STORE.documents], ["v1-key", STORE.v1Key], ["lang", STORE.lang]]) {
      const input = $(id);
      input.value = window.sessionStorage.getItem(key) || "";
      const remember = () => window.sessionStorage.setItem(key, input.value);
      input.addEventListener("input", remember);
      input.addEventListener("change", remember);
    }
    $("scenario").value = params.get("scenario") || "";
    const mode = params.get("mode") || window.sessionStorage.getItem(STORE.mode) || "v2";
    $(mode === "ask" ? "mode-ask" : "mode-v2").checked = true;
    for (const radio of document.querySelectorAll('input[name="mode"]')) {
      radio.addEventListener("change", () => {
        window.sessionStorage.setItem(STORE.mode, currentMode());
        showMode();
      });
    }
    showMode();
    $("ask-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const question = $("question").value.trim();
      if (!question) {
        $("status").textContent = "Tulis pertanyaan dulu.";
        $("question").focus();
        return;
      }
      if (currentMode() === "ask") askV1(question);
      else ask(question);
    });
    $("question").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        $("ask-form").requestSubmit();
      }
    });
    $("new-conversation").addEventListener("click", () => {
      if (state.controller) state.controller.abort();
      state.turns = [];
      $("turns").replaceChildren();
      setConversation(null);
      $("question").focus();
    });
    $("passage-close").addEventListener("click", () => $("passage-dialog").close());
    $("upload-form").addEventListener("submit", uploadDocuments);
    $("documents-refresh").addEventListener("click", loadDocuments);
    $("documents").addEventListener("toggle", () => {
      if ($("documents").open) loadDocuments();
    });
    document.body.dataset.ready = "true";
  }

  // Exposed for tests and for partners reading the reference implementation.
  window.tandaClient = { sseParser, placeSpans, markOf, blocksOf, answerPieces };

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
