"""Every request tanda sends to OpenSearch, checked against OpenSearch's own contract (issue 26).

No OpenSearch runs in the tests: the adapter talks to fakes on loopback
(``tests/opensearch_memory.py``). This module holds the fakes to OpenSearch's published OpenAPI
specification (``../shared/data/specs/opensearch-api/spec``, Apache-2.0): each recorded request is
matched to an operation by method and path template, its query parameters must be parameters of
that operation (or global ones), and its body must validate against the operation's request body
schema in *strict* mode — an object schema that lists its properties accepts no other property
(``unevaluatedProperties: false`` added where the spec lists them, so ``allOf`` compositions still
see every branch's properties). ``_bulk`` and ``_msearch`` bodies are checked line by line: action
lines against ``OperationContainer``, documents against the index mapping tanda creates, update
lines against ``UpdateAction``, msearch header and body lines against their own schemas.

What the spec leaves as free strings (k-NN engine and space type, analyser languages, stopword
sets) is asserted against the values OpenSearch documents, listed below with their pages.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jsonschema_rs
import yaml

from tanda.retrieval import opensearch_bodies as bodies
from tests.corpus import shared_data

METHODS = ("get", "put", "post", "delete", "head", "patch")

# --- the spec's own gaps -----------------------------------------------------------------------
# Each entry: a JSON pointer into a request body (``*`` = any array item / any map key) whose value
# the spec does not describe yet although OpenSearch accepts it. Keep it short, say why, link.
SPEC_GAPS: dict[str, str] = {
    # The score-ranker-processor takes `combination.parameters.weights` from OpenSearch 3.1 on
    # (https://docs.opensearch.org/latest/search-plugins/search-pipelines/score-ranker-processor/);
    # the spec's ScoreRankerCombination lists only `technique` and `rank_constant`.
    "/phase_results_processors/*/score-ranker-processor/combination/parameters": (
        "score-ranker-processor.combination.parameters (OpenSearch 3.1+)"
    ),
}

# --- what the spec leaves as free strings ------------------------------------------------------
# https://docs.opensearch.org/latest/field-types/supported-field-types/knn-methods-engines/
KNN_ENGINES = frozenset({"lucene", "faiss", "nmslib"})
# https://docs.opensearch.org/latest/field-types/supported-field-types/knn-spaces/
KNN_SPACE_TYPES = frozenset({"l2", "l1", "linf", "cosinesimil", "innerproduct", "hamming"})
# https://docs.opensearch.org/latest/analyzers/token-filters/stemmer/ (the `language` values)
STEMMER_LANGUAGES = frozenset(
    {
        "arabic", "armenian", "basque", "bengali", "brazilian", "bulgarian", "catalan", "czech",
        "danish", "dutch", "dutch_kp", "english", "light_english", "lovins", "minimal_english",
        "porter2", "possessive_english", "estonian", "finnish", "light_finnish", "french",
        "light_french", "minimal_french", "galician", "minimal_galician", "german", "german2",
        "light_german", "minimal_german", "greek", "hindi", "hungarian", "light_hungarian",
        "indonesian", "irish", "italian", "light_italian", "sorani", "latvian", "lithuanian",
        "norwegian", "light_norwegian", "minimal_norwegian", "light_nynorsk", "minimal_nynorsk",
        "portuguese", "light_portuguese", "minimal_portuguese", "portuguese_rslp", "romanian",
        "russian", "light_russian", "spanish", "light_spanish", "swedish", "light_swedish",
        "turkish",
    }
)  # fmt: skip
# https://docs.opensearch.org/latest/analyzers/token-filters/lowercase/ (the `language` values)
LOWERCASE_LANGUAGES = frozenset({"greek", "irish", "turkish"})
# https://docs.opensearch.org/latest/analyzers/token-filters/stop/ (predefined stopword sets)
STOPWORD_SETS = frozenset(
    {
        "_arabic_", "_armenian_", "_basque_", "_bengali_", "_brazilian_", "_bulgarian_",
        "_catalan_", "_cjk_", "_czech_", "_danish_", "_dutch_", "_english_", "_estonian_",
        "_finnish_", "_french_", "_galician_", "_german_", "_greek_", "_hindi_", "_hungarian_",
        "_indonesian_", "_irish_", "_italian_", "_latvian_", "_lithuanian_", "_norwegian_",
        "_persian_", "_portuguese_", "_romanian_", "_russian_", "_sorani_", "_spanish_",
        "_swedish_", "_thai_", "_turkish_", "_none_",
    }
)  # fmt: skip


class ContractViolation(AssertionError):
    """A request OpenSearch's contract does not allow."""


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    params: Mapping[str, Sequence[str]]
    body: Any
    """Parsed JSON; a list of lines for the NDJSON of ``_bulk`` / ``_msearch``."""


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    pattern: re.Pattern[str]
    literal_segments: int
    operation_id: str
    parameters: Mapping[str, str | None]
    """Query parameter name → the URI of its schema (None when the spec gives it inline)."""
    body_schema: str | None
    """The URI of the request body's schema; None when the operation takes no body."""


# --- loading -----------------------------------------------------------------------------------


def _spec_root() -> Path:
    return shared_data("specs", "opensearch-api", "spec")


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


def _ref_key(uri: str, ref: str) -> str:
    """``file.yaml#/pointer`` of a ``$ref`` seen in the file ``uri``."""
    target, _, pointer = ref.partition("#")
    name = Path(target).name if target else Path(uri).name
    return f"{name}#{pointer}"


def _self_key(uri: str, pointer: str) -> str:
    return f"{Path(uri).name}#{pointer}"


def _strict(documents: dict[str, Any]) -> None:
    """Make every object schema that lists its properties refuse any other one.

    ``unevaluatedProperties: false`` (not ``additionalProperties``) so that a schema composed with
    ``allOf`` accepts the properties of all its branches; the branches themselves (inline or by
    ``$ref``) are left open, the composed schema is closed. Schemas that already say what to do
    with other properties (``additionalProperties``, ``patternProperties``) are left alone.
    """
    members: set[str] = set()
    inline_members: set[int] = set()
    for uri, document in documents.items():
        for node in _walk(document):
            for member in node.get("allOf", ()):
                if isinstance(member, dict):
                    inline_members.add(id(member))
                    if "$ref" in member:
                        members.add(_ref_key(uri, member["$ref"]))
    for uri, document in documents.items():
        schemas = document.get("components", {}).get("schemas", {})
        named = {id(s): _self_key(uri, f"/components/schemas/{n}") for n, s in schemas.items()}
        for node in _walk(document):
            if id(node) in inline_members or named.get(id(node)) in members:
                continue
            open_keys = {"additionalProperties", "patternProperties", "unevaluatedProperties"}
            if open_keys & node.keys():
                continue
            declares = isinstance(node.get("properties"), dict) or "allOf" in node
            if declares and node.get("type", "object") == "object":
                node["unevaluatedProperties"] = False


DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass
class Spec:
    operations: tuple[Operation, ...]
    global_parameters: Mapping[str, str | None]
    registry: jsonschema_rs.Registry
    schema_uri: dict[str, str]
    validators: dict[str, jsonschema_rs.Validator]

    def validator(self, schema_uri: str) -> jsonschema_rs.Validator:
        """A validator of the schema at ``schema_uri`` (compiled once)."""
        if schema_uri not in self.validators:
            self.validators[schema_uri] = jsonschema_rs.validator_for(
                {"$schema": DIALECT, "$ref": schema_uri},
                registry=self.registry,
                base_uri="urn:tanda:opensearch-contract",
            )
        return self.validators[schema_uri]

    def named_schema(self, file: str, name: str) -> jsonschema_rs.Validator:
        return self.validator(f"{self.schema_uri[file]}#/components/schemas/{name}")

    def operation(self, method: str, path: str) -> Operation:
        candidates = [
            op for op in self.operations if op.method == method and op.pattern.fullmatch(path)
        ]
        if not candidates:
            raise ContractViolation(f"{method} {path}: no operation of the OpenSearch spec")
        return max(candidates, key=lambda op: op.literal_segments)


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", template)
    regex = "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts)
    return re.compile(regex)


@cache
def load_spec() -> Spec:
    """The spec, parsed, made strict and indexed once per process (about half a second)."""
    root = _spec_root()
    documents: dict[str, Any] = {}
    for path in sorted(root.rglob("*.yaml")):
        documents[path.resolve().as_uri()] = yaml.load(path.read_text(), Loader=yaml.CSafeLoader)
    _strict(documents)
    registry = jsonschema_rs.Registry(list(documents.items()), draft=jsonschema_rs.Draft202012)
    global_uri = (root / "_global_parameters.yaml").resolve().as_uri()
    global_parameters = {
        p["name"]: f"{global_uri}#/components/parameters/{_escape(key)}/schema"
        for key, p in documents[global_uri]["components"]["parameters"].items()
    }
    operations: list[Operation] = []
    for uri, document in documents.items():
        if "/namespaces/" not in uri:
            continue
        for template, item in (document.get("paths") or {}).items():
            for method in METHODS:
                op = item.get(method)
                if op is None:
                    continue
                declared = [*item.get("parameters", []), *op.get("parameters", [])]
                params = {
                    p["name"]: f"{uri}#{_escape_pointer(ref['$ref'][1:])}/schema"
                    if "$ref" in ref
                    else None
                    for ref in declared
                    if (p := _lookup(document, ref))["in"] == "query"
                }
                body_schema = None
                if "requestBody" in op:
                    ref = op["requestBody"].get("$ref")
                    at = ref[1:] if ref else f"/paths/{_escape(template)}/{method}/requestBody"
                    content = _lookup(document, op["requestBody"])["content"]
                    body_schema = f"{uri}#{at}/content/{_escape(next(iter(content)))}/schema"
                operations.append(
                    Operation(
                        method=method.upper(),
                        template=template,
                        pattern=_pattern(template),
                        literal_segments=sum(
                            1 for s in template.split("/") if s and not s.startswith("{")
                        ),
                        operation_id=op["operationId"],
                        parameters=params,
                        body_schema=body_schema,
                    )
                )
    schema_uri = {Path(uri).name: uri for uri in documents}
    return Spec(tuple(operations), global_parameters, registry, schema_uri, {})


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _escape_pointer(pointer: str) -> str:
    """``/components/parameters/bulk::query.refresh`` → a pointer a URI fragment can carry."""
    return "/".join(quote(part, safe=":.@_-~") for part in pointer.split("/"))


def _lookup(document: Mapping[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and str(node.get("$ref", "")).startswith("#/"):
        target: Any = document
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


# --- checking ----------------------------------------------------------------------------------


def _pointer(path: Iterable[Any]) -> str:
    return "/" + "/".join(str(p) for p in path)


def _without_gaps(body: Any) -> Any:
    """``body`` without the values :data:`SPEC_GAPS` names (the spec cannot judge them)."""
    if not any(True for _ in _gap_hits(body, SPEC_GAPS)):
        return body
    body = copy.deepcopy(body)
    for parent, key in list(_gap_hits(body, SPEC_GAPS)):
        del parent[key]
    return body


def _gap_hits(body: Any, gaps: Iterable[str]) -> Iterator[tuple[Any, Any]]:
    for gap in gaps:
        *route, last = gap.strip("/").split("/")
        nodes = [body]
        for step in route:
            nodes = [
                child
                for node in nodes
                for child in (
                    (node.values() if isinstance(node, dict) else node)
                    if step == "*" and isinstance(node, dict | list)
                    else ([node[step]] if isinstance(node, dict) and step in node else [])
                )
            ]
        yield from ((node, last) for node in nodes if isinstance(node, dict) and last in node)


def _describe(error: jsonschema_rs.ValidationError) -> str:
    text = f"at {_pointer(error.instance_path)}: {error.message[:300]}"
    text += f"\n    schema path: {_pointer(error.schema_path)}"
    branches = getattr(error.kind, "context", None) or []
    closest = [e for branch in branches for e in branch]
    if closest:
        best = max(closest, key=lambda e: len(e.instance_path))
        text += f"\n    closest branch: at {_pointer(best.instance_path)}: {best.message[:300]}"
    return text


def _schema_errors(validator: jsonschema_rs.Validator, instance: Any) -> list[str]:
    return [_describe(e) for e in validator.iter_errors(_without_gaps(instance))]


def violations(
    request: Request, spec: Spec | None = None, mapping: Mapping[str, Any] | None = None
) -> list[str]:
    """What in ``request`` OpenSearch's contract does not allow (empty when it is all allowed).
    Documents are checked against ``mapping`` (the index's properties; by default the chunk
    index tanda creates)."""
    spec = spec or load_spec()
    try:
        op = spec.operation(request.method, request.path)
    except ContractViolation as exc:
        return [str(exc)]
    found: list[str] = []
    unknown = set(request.params) - set(op.parameters) - set(spec.global_parameters)
    if unknown:
        found.append(f"query parameters {sorted(unknown)} are not parameters of {op.operation_id}")
    for name, values in request.params.items():
        schema = op.parameters.get(name) or spec.global_parameters.get(name)
        for value in values if schema else ():
            if not any(spec.validator(schema).is_valid(v) for v in _query_values(value)):
                found.append(f"query parameter {name}={value!r} does not match its schema")
    if request.body is not None:
        found += _body_errors(op, request.body, spec, mapping)
    return [f"{op.operation_id} ({op.template}): {f}" for f in found]


def _body_errors(
    op: Operation, body: Any, spec: Spec, mapping: Mapping[str, Any] | None
) -> list[str]:
    if op.body_schema is None:
        return ["the operation takes no body"]
    if op.operation_id.startswith("bulk."):
        return _bulk(body, spec, mapping)
    if op.operation_id.startswith("msearch."):
        return _msearch(body, spec)
    found = [*_schema_errors(spec.validator(op.body_schema), body), *free_strings(body)]
    if op.operation_id.startswith(("index.", "create.")):
        found += [f"document: {p}" for p in document_errors(body, mapping)]
    return found


def _query_values(value: str) -> list[Any]:
    """The values a query string ``value`` may stand for: itself, its JSON reading (``true``,
    ``10``) and a comma-separated list."""
    readings: list[Any] = [value, value.split(",")]
    with contextlib.suppress(ValueError):
        readings.append(json.loads(value))
    return readings


def _bulk(lines: Sequence[Any], spec: Spec, mapping: Mapping[str, Any] | None) -> list[str]:
    action = spec.named_schema("_core.bulk.yaml", "OperationContainer")
    update = spec.named_schema("_core.bulk.yaml", "UpdateAction")
    found: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        errors = _schema_errors(action, line)
        if errors:
            return [*found, f"bulk line {i + 1} (action): {errors[0]}"]
        ((verb, _meta),) = line.items()
        if verb == "delete":
            i += 1
            continue
        if i + 1 >= len(lines):
            return [*found, f"bulk line {i + 1}: {verb} without its document line"]
        document = lines[i + 1]
        if verb == "update":
            found += [f"bulk line {i + 2} (update): {e}" for e in _schema_errors(update, document)]
            if isinstance(document, Mapping) and "doc" in document:
                found += [
                    f"bulk line {i + 2} (doc): {p}"
                    for p in document_errors(document["doc"], mapping)
                ]
        else:
            found += [
                f"bulk line {i + 2} (document): {p}" for p in document_errors(document, mapping)
            ]
        i += 2
    return found


def _msearch(lines: Sequence[Any], spec: Spec) -> list[str]:
    header = spec.named_schema("_core.msearch.yaml", "MultisearchHeader")
    body = spec.named_schema("_core.msearch.yaml", "MultisearchBody")
    if len(lines) % 2:
        return [f"msearch: {len(lines)} lines, not header/body pairs"]
    found: list[str] = []
    for i, line in enumerate(lines):
        validator = header if i % 2 == 0 else body
        kind = "header" if i % 2 == 0 else "body"
        found += [f"msearch line {i + 1} ({kind}): {e}" for e in _schema_errors(validator, line)]
    return found


# --- documents against the mapping tanda creates -----------------------------------------------


def document_errors(document: Any, properties: Mapping[str, Any] | None = None) -> list[str]:
    """Fields of ``document`` the chunk index's mapping (``dynamic: strict``) would refuse."""
    if properties is None:
        # The index existed before the test: tanda's mapping, the vector of any size.
        properties = bodies.index_body(1)["mappings"]["properties"]
        properties[bodies.EMBEDDING_FIELD].pop("dimension")
    if not isinstance(document, Mapping):
        return [f"a document must be an object, not {type(document).__name__}"]
    found: list[str] = []
    for name, value in document.items():
        field = properties.get(name)
        if field is None:
            found.append(f"field {name!r} is not in the mapping (dynamic: strict)")
            continue
        found += [f"{name}: {p}" for p in _field_errors(field, value)]
    return found


def _field_errors(field: Mapping[str, Any], value: Any) -> list[str]:
    if value is None:
        return []
    kind = field.get("type", "object")
    if kind == "knn_vector":
        ok = isinstance(value, list) and all(
            isinstance(x, int | float) and not isinstance(x, bool) for x in value
        )
        if not ok:
            return ["a knn_vector must be a list of numbers"]
        if "dimension" in field and len(value) != field["dimension"]:
            return [f"a knn_vector of {len(value)} numbers, the mapping says {field['dimension']}"]
        return []
    values = value if isinstance(value, list) else [value]
    for item in values:
        if kind == "object":
            if not isinstance(item, Mapping):
                return [f"an object field got {type(item).__name__}"]
            if field.get("enabled", True) is False:
                continue
            return document_errors(item, field.get("properties", {}))
        if kind in ("keyword", "text", "date") and not isinstance(item, str):
            return [f"a {kind} field got {type(item).__name__}"]
        if kind == "integer" and (isinstance(item, bool) or not isinstance(item, int)):
            return [f"an integer field got {type(item).__name__}"]
        if kind == "boolean" and not isinstance(item, bool):
            return [f"a boolean field got {type(item).__name__}"]
    return []


# --- what the spec leaves as free strings ------------------------------------------------------


def free_strings(body: Any) -> list[str]:
    """k-NN engine and space type, analyser languages and stopword sets in ``body`` that are not
    values OpenSearch documents (the spec types them as plain strings), and the shape of the
    allowlisted score-ranker weights."""
    found: list[str] = []
    for node in _walk(body):
        kind = node.get("type")
        checks: list[tuple[str, Any, frozenset[str]]] = []
        if kind == "knn_vector":
            method = node.get("method") if isinstance(node.get("method"), Mapping) else {}
            checks += [
                ("k-NN engine", method.get("engine"), KNN_ENGINES),
                ("k-NN space type", method.get("space_type"), KNN_SPACE_TYPES),
                ("k-NN space type", node.get("space_type"), KNN_SPACE_TYPES),
            ]
        elif kind == "stemmer":
            checks.append(("stemmer language", node.get("language"), STEMMER_LANGUAGES))
        elif kind == "lowercase":
            checks.append(("lowercase language", node.get("language"), LOWERCASE_LANGUAGES))
        elif kind == "stop" and isinstance(node.get("stopwords"), str):
            checks.append(("stopword set", node["stopwords"], STOPWORD_SETS))
        found += [
            f"{what} {value!r} is not one OpenSearch documents"
            for what, value, documented in checks
            if value is not None and value not in documented
        ]
        ranker = node.get("score-ranker-processor")
        parameters = (ranker or {}).get("combination", {}).get("parameters")
        if parameters is not None and not _weights(parameters):
            found.append(f"score-ranker parameters {parameters!r}: only {{'weights': [numbers]}}")
    return found


def _weights(parameters: Any) -> bool:
    """The one parameter of the allowlisted gap: ``{"weights": [non-negative numbers]}``."""
    weights = parameters.get("weights") if isinstance(parameters, Mapping) else None
    return (
        set(parameters) == {"weights"}
        and isinstance(weights, list)
        and all(isinstance(w, int | float) and not isinstance(w, bool) and w >= 0 for w in weights)
    )


def recorded_mapping(requests: Sequence[Request]) -> dict[str, Any] | None:
    """The properties the recorded requests gave the index (create, then put_mapping), or None
    when none was created here (the fake starts with an existing index)."""
    properties: dict[str, Any] | None = None
    for request in requests:
        if request.method != "PUT" or not isinstance(request.body, Mapping):
            continue
        parts = [p for p in request.path.split("/") if p]
        if len(parts) == 1 and not parts[0].startswith("_"):
            properties = dict(request.body.get("mappings", {}).get("properties", {}))
        elif len(parts) == 2 and parts[1] == "_mapping" and properties is not None:
            properties.update(request.body.get("properties", {}))
    return properties


# --- the fixtures' teardown --------------------------------------------------------------------


@dataclass
class Checked:
    requests: int
    bodies: set[str]


CHECKED = Checked(0, set())
"""What this process validated (for the report / docs figure)."""


def check(requests: Iterable[Request]) -> None:
    """Fail (as a test failure) with every recorded request the contract does not allow."""
    __tracebackhide__ = True  # pytest shows the message, not this function
    spec = load_spec()
    requests = list(requests)
    mapping = recorded_mapping(requests)
    problems: list[str] = []
    for request in requests:
        CHECKED.requests += 1
        if request.body is not None:
            CHECKED.bodies.add(json.dumps(request.body, sort_keys=True))
        for problem in violations(request, spec, mapping):
            problems.append(f"{request.method} {request.path}\n  {problem}")
    if problems:
        raise ContractViolation(
            "requests OpenSearch's API specification does not allow "
            "(tests/opensearch_contract.py, docs/opensearch.md):\n" + "\n".join(problems)
        )
