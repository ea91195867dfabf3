"""Hypothesis strategies for requests to the operations of Zulip's OpenAPI that we serve.

Each request mixes documented values (enums, plausible ids, JSON of the right shape) with
hostile ones (wrong types, huge integers, NUL and control characters, deep nesting, invalid
JSON, bytes that are not UTF-8), encoded the way python-zulip-api encodes parameters.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from hypothesis import strategies as st

from tests.support import openapi

JsonDict = dict[str, Any]
MAX_DEPTH = 3
HOSTILE_TEXT = st.sampled_from(
    [
        "",
        "\x00",
        "a\x00b",
        "\u202e\x07\x1b[31m",
        "[" * 2000,
        "[[[[" * 300 + "]]]]" * 300,
        '{"a":' * 500 + "1" + "}" * 500,
        "null",
        "true",
        "1e400",
        "-1",
        str(10**30),
        "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
        "x" * 5000,
        "%00%ff",
        "../../etc/passwd",
        "<script>alert(1)</script>",
        "javascript:alert(1)",
    ]
)
SMALL_IDS = st.integers(min_value=-2, max_value=40)
HUGE_INTS = st.sampled_from([2**31, 2**63, -(2**63) - 1, 10**23, 10**400])


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    parameters: list[JsonDict]
    body: JsonDict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.method.upper()} {self.path}"


def served_operations(our_routes: set[tuple[str, str]]) -> list[Operation]:
    """Operations of the OpenAPI document whose (normalized path, method) we route."""
    spec = openapi.require()
    found = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method not in ("get", "post", "patch", "delete", "put"):
                continue
            if (normalize(path), method) not in our_routes:
                continue
            parameters = [
                _with_schema(openapi._resolve(p)) for p in operation.get("parameters", [])
            ]
            body: JsonDict = {}
            content = openapi._resolve(operation.get("requestBody", {})).get("content", {})
            for media in content.values():
                body = openapi._merged(media.get("schema", {}))
                break
            found.append(Operation(method, path, parameters, body))
    return found


def _with_schema(parameter: JsonDict) -> JsonDict:
    """A parameter whose schema is given as `content: application/json` (narrow...) too."""
    if "schema" not in parameter:
        for media in parameter.get("content", {}).values():
            return {**parameter, "schema": media.get("schema", {})}
    return parameter


# Sent in every parameter at once, once per operation: the values that once caused 500s.
SWEEP_VALUES = (
    "[" * 3000,
    "[" * 40 + "]" * 40,
    '{"a":' * 1200 + "1" + "}" * 1200,
    "\x00",
    "a\x00b",
    str(10**30),
    "-" + str(2**63),
    "1e400",
    "x" * 5000,
    "[" + ",".join(['{"operator":"search","operand":"x"}'] * 1200) + "]",
)


def sweep_requests(operation: Operation, path_id: int) -> list[Request]:
    """Deterministic hostile requests: every parameter set to each of SWEEP_VALUES."""
    url = operation.path
    for parameter in operation.parameters:
        if parameter.get("in") == "path":
            url = url.replace("{" + parameter["name"] + "}", str(path_id))
    names = [p["name"] for p in operation.parameters if p.get("in") == "query"]
    names += list(operation.body.get("properties", {}))
    found = []
    for value in SWEEP_VALUES:
        # In the body even for GET (we read it, as Zulip does): long values overflow a URL.
        values = dict.fromkeys(names, value)
        found.append(Request(operation.method, url, {}, values, multipart=False))
        found.append(Request(operation.method, url, {}, values, multipart=True))
    return found


def normalize(path: str) -> str:
    """A path template with every placeholder written `{}` (ours carry `:int` converters)."""
    return re.sub(r"\{[^}]+\}", "{}", path)


def value_for(schema: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values for `schema`: mostly documented ones, sometimes anything hostile."""
    schema = openapi._merged(schema or {})
    documented = _documented(schema, depth)
    return st.one_of(documented, documented, documented, _hostile(depth))


def _documented(schema: JsonDict, depth: int) -> st.SearchStrategy[Any]:
    for combinator in ("oneOf", "anyOf"):
        if combinator in schema:
            return st.one_of([value_for(option, depth) for option in schema[combinator]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "example" in schema:
        return st.one_of(st.just(schema["example"]), _by_type(schema, depth))
    return _by_type(schema, depth)


def _by_type(schema: JsonDict, depth: int) -> st.SearchStrategy[Any]:
    kind = schema.get("type")
    if kind == "integer":
        return st.one_of(SMALL_IDS, st.integers(), HUGE_INTS)
    if kind == "number":
        return st.one_of(st.floats(allow_nan=False), SMALL_IDS)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        if depth >= MAX_DEPTH:
            return st.just([])
        return st.lists(value_for(schema.get("items", {}), depth + 1), max_size=4)
    if kind == "object" or "properties" in schema:
        if depth >= MAX_DEPTH:
            return st.just({})
        properties = {
            key: value_for(value, depth + 1) for key, value in schema.get("properties", {}).items()
        }
        return st.fixed_dictionaries({}, optional=properties)
    return st.text(max_size=30)


def _hostile(depth: int) -> st.SearchStrategy[Any]:
    leaves = st.one_of(HOSTILE_TEXT, st.text(max_size=20), HUGE_INTS, st.none(), st.booleans())
    if depth >= MAX_DEPTH:
        return leaves
    return st.one_of(
        leaves,
        st.lists(leaves, max_size=3),
        st.dictionaries(st.text(max_size=5), leaves, max_size=3),
    )


@dataclass
class Request:
    method: str
    url: str
    params: dict[str, str]
    data: dict[str, str]
    multipart: bool


def encode(value: Any) -> str:
    """python-zulip-api's encoding: strings as they are, everything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):  # YAML examples of binary fields
        return value.decode("latin-1")
    # YAML examples may also be dates: anything JSON cannot encode is sent as its text.
    return json.dumps(value, default=_as_text)


def _as_text(item: object) -> str:
    return item.decode("latin-1") if isinstance(item, bytes) else str(item)


@st.composite
def requests(draw: st.DrawFn, operation: Operation, avoid_ids: frozenset[int]) -> Request:
    """One request for `operation`; `avoid_ids` never fill an id in the path (the caller)."""
    url = operation.path
    query: dict[str, str] = {}
    for parameter in operation.parameters:
        name, where = parameter["name"], parameter.get("in")
        schema = parameter.get("schema") or {}
        if where == "path":
            value = draw(_path_value(schema, avoid_ids))
            url = url.replace("{" + name + "}", quote(str(value), safe=""))
        elif where == "query" and (parameter.get("required") or draw(st.booleans())):
            query[name] = encode(draw(value_for(schema)))
    form: dict[str, str] = {}
    required = set(operation.body.get("required", []))
    for name, schema in operation.body.get("properties", {}).items():
        if name in required or draw(st.booleans()):
            form[name] = encode(draw(value_for(schema)))
    if draw(st.integers(0, 9)) == 0:
        form[draw(st.text(min_size=1, max_size=8))] = draw(HOSTILE_TEXT)
    if operation.method == "get":
        query.update(form)
        form = {}
    return Request(operation.method, url, query, form, multipart=draw(st.integers(0, 4)) == 0)


def _path_value(schema: JsonDict, avoid_ids: frozenset[int]) -> st.SearchStrategy[Any]:
    if schema.get("type") == "integer":
        ids = SMALL_IDS.filter(lambda value: value not in avoid_ids)
        return st.one_of(ids, ids, HUGE_INTS)
    return st.one_of(
        st.text(min_size=1, max_size=20), SMALL_IDS.map(str), HOSTILE_TEXT.filter(bool)
    )
