"""One settings model for every deployment (DESIGN §7).

Read once per process by :func:`load_settings` — never at import, so a Lambda cold start pays for it
only when the handler first runs, and tests can build a ``Settings`` by hand.
Every field is a ``TANDA_*`` environment variable; the defaults are the embedded ones and need no
configuration at all.
"""

from __future__ import annotations

import json
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from tanda.credits import MAX_BALANCE, read_amount
from tanda.sources import McpServerConfig, PortalConfig, parse_mcp_servers, parse_portals

DEFAULT_JWT_PARTNER_SCOPE = "tanda:partner"
DEFAULT_JWT_ADMIN_SCOPE = "tanda:admin"
_SCOPE_PATTERN = r"^[!#-\[\]-~]*$"  # RFC 6749 §3.3: a scope-token, or empty


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TANDA_", extra="ignore", frozen=True)

    home: Path = Field(
        default=Path(".tanda"),
        description="Folder for embedded state: SQLite files, local keys. Created on first use.",
    )
    host: str = Field(default="127.0.0.1", description="`tanda serve` bind address.")
    port: int = Field(default=8765, ge=0, le=65535, description="`tanda serve` port.")
    max_body_bytes: int = Field(
        default=1024 * 1024,
        ge=1024,
        description="Largest request body, in bytes; a larger one is refused with 413 before it "
        "is read or parsed, before authentication (docs/requests.md). The largest valid body, "
        "every character escaped, is about 261 KB; Lambda stops at 6 MB whatever this says.",
    )
    max_upload_bytes: int = Field(
        default=50 * 1024 * 1024,
        ge=1,
        description="Largest document a partner may upload (`POST /v1/documents`, issue 26), in "
        "bytes: a larger declared size is refused with 413 before any byte is stored, and the "
        "upload URL accepts exactly the declared size (docs/documents.md).",
    )
    model: str = Field(
        default="offline",
        description="Chat model adapter: `offline` (embedded default), `scripted:DIR` "
        "(docs/scenarios.md), `openai:BASE_URL[#MODEL]` (API key in env `TANDA_MODEL_API_KEY`), "
        "`bedrock:MODEL_ID`.",
    )
    runner: str = Field(default="inprocess", description="`inprocess` or `stepfunctions`.")
    store: str = Field(default="sqlite", description="`sqlite` (embedded) or `dynamodb`.")
    dynamodb_table: str = Field(
        default="tanda", description="DynamoDB table of conversations, messages, memory, limits."
    )
    dynamodb_receipts_table: str = Field(
        default="tanda-receipts", description="DynamoDB table of playground receipts (TTL)."
    )
    query_state_machine_arn: str | None = Field(
        default=None,
        description="The EXPRESS state machine `TANDA_RUNNER=stepfunctions` starts per answer.",
    )

    # --- retrieval (docs/retrieval.md) ---------------------------------------------------------
    index: str = Field(
        default="sqlite",
        description="Search index: `sqlite` (embedded file `<home>/index.sqlite`) or "
        "`opensearch:https://HOST` (AWS SigV4 when `opensearch_service` is set).",
    )
    lexical_engine: Literal["tantivy", "sqlite"] = Field(
        default="tantivy",
        description="The engine of the embedded index's lexical arm (`TANDA_INDEX=sqlite`): "
        "`tantivy` (one tantivy index per tenant in `<home>/index.sqlite.tantivy/`; documents, "
        "chunks, records and vectors stay in the SQLite file) or `sqlite` (FTS5 inside the "
        "file). Switching re-indexes the file's chunks once when it is next opened "
        "(docs/retrieval.md).",
    )
    opensearch_index: str = Field(default="tanda-chunks", description="OpenSearch index name.")
    opensearch_service: str | None = Field(
        default=None, description="SigV4 signing service: `es` (managed) or `aoss` (serverless)."
    )
    opensearch_region: str | None = Field(default=None, description="AWS region for SigV4.")
    embedder: str = Field(
        default="none",
        description="Embedder: `none` (lexical only), `openai:BASE_URL[#MODEL]` (`/embeddings`), "
        "`bedrock:MODEL_ID` (Titan Text Embeddings v2).",
    )
    rrf_k: int = Field(default=60, ge=1, description="Reciprocal rank fusion constant k.")
    rrf_weights: dict[str, float] = Field(
        default_factory=lambda: {"lexical": 1.0, "vector": 1.0},
        description="Weight of each retrieval arm in the fusion (JSON map arm → weight).",
    )
    structure_layers: bool = Field(
        default=True,
        description="`tanda ingest` builds each document's structure records (entities, tables, "
        "line items, claims proposed by `TANDA_MODEL`, rules; docs/evidence.md). `false`: chunks "
        "only; records already built stay until the document changes.",
    )
    opensearch_fusion: Literal["pipeline", "client"] | None = Field(
        default=None,
        description="Where OpenSearch's lexical and vector arms are fused with RRF: `pipeline` "
        "(the search pipeline's `score-ranker-processor`, OpenSearch 2.19+) or `client` (two "
        "queries in one `_msearch`, fused by tanda as the embedded index fuses them). Unset: "
        "`client` for Serverless (`aoss`), else `pipeline` (docs/opensearch.md).",
    )
    reranker: str = Field(
        default="lexical",
        description="Reranker of the floor (ASK-06): `lexical` (embedded default: the share of "
        "the query's content terms a passage holds), `none`, `tei:BASE_URL`, "
        "`cohere:BASE_URL[#MODEL]` (any Cohere-shaped `/rerank`: Cohere, Jina, vLLM, Infinity), "
        "`bedrock:MODEL_ID` (Bedrock Rerank API). API key in env `TANDA_RERANKER_API_KEY`.",
    )
    rerank_min_score: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="Reranker floor (ASK-06): hits the reranker scores below it (0–1) reach "
        "neither `/v1/search`, `/v1/ask` nor the agent. `0` keeps every hit. The default suits "
        "`lexical` (how well a passage answers the query, 0–1; measured to keep every answerable "
        "question's passage on both dev sets, docs/retrieval.md#reranker-floor); set it anew for "
        "another reranker.",
    )
    reranker_timeout_s: float = Field(
        default=5.0,
        gt=0,
        description="The most one call to a hosted or Bedrock reranker may take (one retry on "
        "timeout or 5xx); then the search fails with 502 `rerank_failed`.",
    )

    # --- answering pipeline (docs/pipeline.md) ---------------------------------------------------
    request_deadline_s: float = Field(
        default=60.0, gt=0, description="Wall-time budget of one answer, all model calls included."
    )
    model_call_budget: int = Field(
        default=24,
        ge=4,
        description="Model calls one answer may make (agent, judge, checks, guard).",
    )
    judge_share: float = Field(
        default=0.4,
        gt=0,
        lt=1,
        description="Share of the deadline kept for the judge, framing check and guard (V2-23).",
    )
    judge_batch_size: int = Field(default=6, ge=1, le=50, description="Segments per judge call.")
    agent_max_tool_rounds: int = Field(default=4, ge=1, le=10, description="Agent tool rounds.")
    agent_context_chars: int = Field(
        default=24000,
        ge=1000,
        description="Evidence the agent may be shown, in characters; beyond it the answer stops "
        "with `context_budget_exhausted` (V2-18).",
    )
    search_top_k: int = Field(default=6, ge=1, le=20, description="Passages per agent search.")
    tool_deadline_s: float = Field(
        default=10.0,
        gt=0,
        description="The most one agent tool call (search, read_document, list_sources, the "
        "portal and MCP tools) may take; never past the agent's share of the request deadline. "
        "When it passes the call ends with status `timeout` (V2-19).",
    )

    # --- sources beyond the tenant's documents (docs/sources.md, issue 25) ------------------------
    portals: Annotated[dict[str, PortalConfig], NoDecode] = Field(
        default_factory=dict,
        description='JSON map tenant → its open-data portal `{name, base_url, kind: "ckan", '
        'api_key_ref?, timeout_s, max_rows}` (`sources: ["portal"]`). Secrets by reference '
        "only: an environment variable name, or a Secrets Manager ARN on AWS.",
    )
    mcp_servers: Annotated[dict[str, dict[str, McpServerConfig]], NoDecode] = Field(
        default_factory=dict,
        description="JSON map tenant → its MCP servers (a list of `{name, transport: "
        '"streamable_http" | "stdio" (embedded only), url | command, headers_ref?, '
        "allowed_tools?, timeout_s}`) a request may name in `mcp_servers`.",
    )

    stream_workers: int = Field(
        default=16,
        ge=1,
        le=1024,
        description="Answers the stream routes run at once per process, each on a reused worker "
        "thread; one more stream gets 503 `streams_busy` with `Retry-After` (issue 11).",
    )

    v1_min_supported_ratio: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="v1 gate (/query): below this share of confirmed claims the whole answer is "
        "replaced by a refusal (CV-2).",
    )
    playground_receipt_ttl_s: int = Field(
        default=30 * 24 * 3600, ge=60, description="How long playground receipts are kept (PG-5)."
    )

    # --- /v1/ask, credits and the /v1 throttle (docs/ask.md) -------------------------------------
    ask_model: str | None = Field(
        default=None,
        description="Model of the /v1/ask synthesis: unset means `TANDA_MODEL`; `none` means RAG "
        "is not configured (every ask that found sources is 503 `rag_unavailable`, ASK-04); "
        "anything else is a `TANDA_MODEL` value.",
    )
    ask_output_tokens: int = Field(
        default=512,
        ge=64,
        description="Output budget of one /v1/ask synthesis call for a narrow question (ASK-10).",
    )
    ask_list_output_tokens: int = Field(
        default=2048,
        ge=64,
        description="Output budget of one /v1/ask synthesis call for a question that asks for a "
        "list of every item (ASK-10).",
    )
    ask_evidence: bool = Field(
        default=True,
        description="`/v1/ask` shows evidence items from the structure records of the documents "
        "it retrieved (entities, tables, claims, rules, line items; ASK-08, docs/evidence.md) "
        "beside the passages. `false`: passages only, exactly as without the layers.",
    )
    ask_price: Decimal = Field(
        default=Decimal("0.20"),
        ge=0,
        le=MAX_BALANCE,  # issue 23: every amount fits the ledger
        decimal_places=4,
        description="Credits one successful /v1/ask costs (ASK-12); `dip_test_` keys are metered, "
        "never charged.",
    )
    search_price: Decimal = Field(
        default=Decimal("0.05"),
        ge=0,
        le=MAX_BALANCE,  # issue 23: every amount fits the ledger
        decimal_places=4,
        description="Credits one /v1/search costs (ASK-13): cheaper than an ask.",
    )
    initial_credits: Decimal = Field(
        default=Decimal("100"),
        ge=0,
        le=MAX_BALANCE,  # issue 23: every amount fits the ledger
        decimal_places=4,
        description="The balance a tenant's credit ledger opens with, the first time the tenant "
        "is metered, charged or granted credits (embedded default: 500 asks for a demo; the "
        "SAM template sets its own).",
    )
    v1_rate_per_minute: int = Field(
        default=120,
        ge=1,
        description="Requests one tenant may send to /v1/ask, /v1/search and /v1/cross-check "
        "together per one-minute window; more → 429 with `Retry-After` (ASK-13). Counted in the "
        "Store, so it holds across processes and Lambda instances.",
    )

    # --- knowledge queries for agent hosts: the MCP server (docs/mcp.md) ------------------------
    kb_default_budget: int = Field(
        default=20_000,
        ge=500,
        le=1_000_000,
        description="Budget of a paged MCP tool result (`search`, `list_sources`) when the call "
        "sends none, in Unicode code points of the serialized JSON result (KB-03).",
    )
    kb_stale_after_days: int = Field(
        default=365,
        ge=1,
        description="A document indexed longer ago than this many days is stale: `search` warns "
        "about it and its `stale_only` facet finds it (KB-02).",
    )
    mcp_tenant: str = Field(
        default="demo",
        min_length=1,
        description="The tenant `tanda mcp` (stdio) reads, unless `--tenant` names another; over "
        "HTTP the tenant is the `dip_…` key's.",
    )
    mcp_cross_check_wait_s: float = Field(
        default=20.0,
        ge=0,
        le=900,
        description="How long the MCP tool `cross_check` polls the job it started before it "
        "returns the job's id and status as they are (XC-5); the host reads it later with "
        "`GET /v1/cross-check/{id}`. Behind API Gateway keep it under its 29-second limit.",
    )

    # --- /v1/cross-check jobs (docs/cross-check.md) ---------------------------------------------
    uploads_bucket: str | None = Field(
        default=None,
        description="The S3 bucket of uploaded originals (issue 26; template.yaml "
        "`UploadsBucket`): set, uploads are S3 presigned POSTs to "
        "`tenants/<tenant>/uploads/<document_id>` and the originals are read and erased "
        "there; unset, they are files under `TANDA_HOME/uploads`.",
    )
    bulk_ingest_state_machine_arn: str | None = Field(
        default=None,
        description="The Distributed Map state machine of bulk imports (issue 26): "
        "`POST /v1/batches/{batch_id}/import` and `tanda ingest --remote` start it; unset, bulk "
        "imports are not available (embedded: `tanda ingest` reads a folder itself).",
    )
    cross_check_state_machine_arn: str | None = Field(
        default=None,
        description="The STANDARD state machine that runs cross-check jobs when "
        "`TANDA_RUNNER=stepfunctions` (XC-5); in-process, `tanda serve` runs them itself.",
    )
    xc_workers: int = Field(
        default=2,
        ge=1,
        le=64,
        description="Cross-check jobs `tanda serve` runs at once (its embedded worker pool); more "
        "wait queued in the Store.",
    )
    xc_lease_s: float = Field(
        default=30.0,
        gt=0,
        description="How long a running job's worker may go without renewing its lease (it "
        "renews it three times in that time). A job whose lease ran out — its process died — is "
        "resumed by the next worker pool that sees it.",
    )
    xc_max_attempts: int = Field(
        default=2,
        ge=1,
        le=10,
        description="Runs a job may start (a restart resumes it); one interrupted after this "
        "many fails with `interrupted` and is refunded, never left `running`.",
    )
    xc_claim_budget: int = Field(
        default=2000,
        ge=2,
        description="Claims that take part in one job, shared out fairly between its documents "
        "(XC-6): each document brings its most important claims, a short one leaves its share "
        "to the others.",
    )
    xc_neighbours: int = Field(
        default=3,
        ge=1,
        le=20,
        description="Most similar claims of the other documents each claim is paired with "
        "(the similarity channel, XC-4).",
    )
    xc_max_candidates: int = Field(
        default=400,
        ge=1,
        description="Candidate pairs one job judges at most, highest priority first; the rest "
        "are counted in `stats.candidates_capped` (XC-6).",
    )
    xc_judge_concurrency: int = Field(
        default=4,
        ge=1,
        le=64,
        description="Judge batches one job runs at once, in-process and as the state machine's "
        "Map `MaxConcurrency`: so many `xc_judge` model calls at a time.",
    )
    xc_batch_size: int = Field(
        default=8,
        ge=1,
        le=200,
        description="Candidate pairs per judge batch, judged one after another: one Map "
        "iteration (one Lambda) on AWS; `TANDA_XC_JUDGE_CONCURRENCY` batches run at once.",
    )

    # --- auth (docs/auth.md) -------------------------------------------------------------------
    # Secrets are never configured here, only their SHA-256 hashes. Keys made by `tanda keys
    # create` are records in the Store (issue 27); these hashes are the bootstrap path.
    api_key_hashes: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(),
        description="SHA-256 hex digests of accepted shared `X-API-Key` values (V2-01, PG-1); "
        "a JSON list or a comma-separated string. The bootstrap path: accepted beside the keys "
        "in the Store, never revoked by `tanda keys revoke`.",
    )
    v1_api_key_hashes: dict[str, str] = Field(
        default_factory=dict,
        description="JSON map SHA-256 hex digest of a `dip_live_…`/`dip_test_…` key → tenant id "
        "(ASK-01). The bootstrap path, as `TANDA_API_KEY_HASHES`.",
    )
    auth_cache_s: float = Field(
        default=60.0,
        ge=0,
        le=60,
        description="Seconds a process keeps what it read of a key or a tenant's status from the "
        "Store (issue 27): a revoked or expired key, or a suspended tenant, is refused by every "
        "process within this bound. 0 reads the Store on every request.",
    )
    jwt_public_keys: str | None = Field(
        default=None,
        description="Partner JWT verification keys: a JWKS JSON document, a PEM public key, a path "
        "to either (trusted for every configured issuer), or a JSON map issuer → one of those "
        "(each key trusted for its issuer only).",
    )
    jwt_issuers: dict[str, str] = Field(
        default_factory=dict,
        description="JSON map of accepted JWT issuer (`iss`) → tenant id.",
    )
    jwt_admin_issuer: str | None = Field(
        default=None,
        description="The issuer whose tokens carry the `admin` role (playground, PG-1). Must also "
        "be a key of `jwt_issuers`.",
    )
    jwt_audience: str = Field(default="tanda", description="Required JWT `aud` value.")
    jwt_partner_scope: str = Field(
        default=DEFAULT_JWT_PARTNER_SCOPE,
        max_length=128,
        pattern=_SCOPE_PATTERN,
        description="The scope a JWT must carry for the partner routes (V2-01), in its `scope` "
        "claim (space-separated) or `scp` claim (array); without it 403 `insufficient_scope`. "
        "An admin token needs it too. Empty: none required — only while partners' tokens do not "
        "carry it yet (docs/auth.md).",
    )
    jwt_admin_scope: str = Field(
        default=DEFAULT_JWT_ADMIN_SCOPE,
        max_length=128,
        pattern=_SCOPE_PATTERN,
        description="The scope an admin JWT must carry for the admin routes (`/playground`, "
        "PG-1), beside coming from the admin issuer; without it 403 `insufficient_scope`. "
        "Empty: none required.",
    )
    jwt_leeway_s: float = Field(
        default=30.0, ge=0, le=300, description="Clock skew tolerated on JWT `exp`/`nbf`, seconds."
    )
    jwt_max_lifetime_s: float = Field(
        default=24 * 3600.0,
        gt=0,
        description="Longest JWT lifetime accepted, seconds: a token whose `exp` is further out "
        "than its `iat` (or now, when it has none) plus this is refused with 403 `invalid_token`.",
    )
    verified_identity: bool = Field(
        default=True,
        description="Admin identity is verified from the admin JWT. When false the playground "
        "fails closed with 503 (PG-1).",
    )
    admin_rate_per_minute: float = Field(
        default=10.0, gt=0, description="Sustained playground requests per admin per minute (PG-1)."
    )
    admin_rate_burst: int = Field(
        default=5, ge=1, description="Playground requests an admin may send in one burst (PG-1)."
    )

    @field_validator("ask_price", "search_price", "initial_credits", mode="before")
    @classmethod
    def _ascii_amount(cls, value: Any) -> Any:
        # Issue 23: "1_000", "1e3" and digits of other scripts are no amounts here either.
        return read_amount(value) if isinstance(value, str) else value

    @field_validator("portals", mode="before")
    @classmethod
    def _portals(cls, value: Any) -> Any:
        return parse_portals(value)

    @field_validator("mcp_servers", mode="before")
    @classmethod
    def _mcp_servers(cls, value: Any) -> Any:
        return parse_mcp_servers(value)

    @field_validator("api_key_hashes", mode="before")
    @classmethod
    def _split_hashes(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return tuple(json.loads(text))
            return tuple(part.strip() for part in text.split(",") if part.strip())
        return value


@lru_cache(maxsize=1)
def load_settings() -> Settings:
    """The process's settings, read from the environment the first time they are needed."""
    return Settings()


def settings_table() -> str:
    """The Markdown table of every setting, as ``docs/settings.md`` shows it (kept current by a
    test)."""
    rows = ["| setting | default | meaning |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        default = field.get_default(call_default_factory=True)
        if isinstance(default, Path):
            default = str(default)
        shown = "—" if default in (None, (), {}) else f"`{default}`"
        meaning = (field.description or "").replace("|", "\\|")
        rows.append(f"| `TANDA_{name.upper()}` | {shown} | {meaning} |")
    return "\n".join(rows) + "\n"
