"""Check success responses against Zulip's OpenAPI description (../shared/zulip-openapi.yaml).

The file is reference data that a user's clone does not have: without it these checks skip,
saying why. Extra keys are allowed (we send both service_* and zulip_* names); every
documented key present must have the documented type, and required keys must be present.
"""

from __future__ import annotations

import os
import pickle
from functools import cache
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
OPENAPI_PATH = Path(
    os.environ.get("TEAMCHAT_ZULIP_OPENAPI", REPO_ROOT.parent / "shared" / "zulip-openapi.yaml")
)
SKIP_REASON = (
    f"Zulip's OpenAPI description is not at {OPENAPI_PATH} (CI has it beside the repository; "
    "set TEAMCHAT_ZULIP_OPENAPI to point at a copy)"
)


@cache
def spec() -> dict[str, Any] | None:
    if not OPENAPI_PATH.exists():
        return None
    cache_file = (
        Path(os.environ.get("TMPDIR", "/tmp"))
        / f"teamchat-openapi-{OPENAPI_PATH.stat().st_mtime_ns}.pickle"
    )
    if cache_file.exists():
        with cache_file.open("rb") as handle:
            return pickle.load(handle)  # type: ignore[no-any-return]
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with OPENAPI_PATH.open(encoding="utf-8") as handle:
        data: dict[str, Any] = yaml.load(handle, Loader=loader)
    with cache_file.open("wb") as handle:
        pickle.dump(data, handle)
    return data


def available() -> bool:
    return spec() is not None


def require() -> dict[str, Any]:
    data = spec()
    if data is None:
        pytest.skip(SKIP_REASON)
    return data


def _resolve(node: Any) -> Any:
    data = spec()
    assert data is not None
    while isinstance(node, dict) and "$ref" in node:
        _, section, name = node["$ref"].lstrip("#/").split("/", 2)
        node = data["components"][section][name]
    return node


def _merged(schema: dict[str, Any]) -> dict[str, Any]:
    """Merge allOf members (properties, required) into one object schema."""
    schema = _resolve(schema)
    if "allOf" not in schema:
        return schema
    merged: dict[str, Any] = {"properties": {}, "required": []}
    for part in schema["allOf"]:
        part = _merged(part)
        for key, value in part.get("properties", {}).items():
            value = _resolve(value)
            if value or key not in merged["properties"]:
                merged["properties"][key] = value
        merged["required"] += part.get("required", [])
        for key in ("type", "nullable", "additionalProperties", "items"):
            if key in part:
                merged[key] = part[key]
    for key, value in schema.items():
        if key != "allOf":
            merged.setdefault(key, value)
    return merged


_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def validate(value: Any, schema: Any, where: str = "$") -> list[str]:
    """Problems found in `value` against `schema` (empty list: it conforms)."""
    schema = _merged(schema)
    if not schema:
        return []
    if value is None:
        return [] if schema.get("nullable") or "type" not in schema else [f"{where}: null"]
    for combinator in ("oneOf", "anyOf"):
        if combinator in schema:
            options = [validate(value, option, where) for option in schema[combinator]]
            if any(not problems for problems in options):
                return []
            return [f"{where}: matches none of {combinator}: {options[0][:3]}"]
    problem = _type_problem(value, schema, where)
    if problem:
        return [problem]
    if isinstance(value, dict):
        return _object_problems(value, schema, where)
    if isinstance(value, list) and "items" in schema:
        return [
            p
            for i, item in enumerate(value)
            for p in validate(item, schema["items"], f"{where}[{i}]")
        ]
    return []


def _type_problem(value: Any, schema: dict[str, Any], where: str) -> str | None:
    expected = schema.get("type")
    if expected:
        wrong_kind = not isinstance(value, _TYPES[expected])
        if wrong_kind or (expected in ("integer", "number") and isinstance(value, bool)):
            return f"{where}: expected {expected}, got {type(value).__name__} {value!r:.60}"
    if "enum" in schema and value not in schema["enum"] and expected != "boolean":
        return f"{where}: {value!r} not in {schema['enum']}"
    return None


def _object_problems(value: dict[str, Any], schema: dict[str, Any], where: str) -> list[str]:
    problems = [
        f"{where}: missing required key {key!r}"
        for key in schema.get("required", [])
        if key not in value
    ]
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    for key, item in value.items():
        if key in properties:
            problems += validate(item, properties[key], f"{where}.{key}")
        elif isinstance(extra, dict):
            problems += validate(item, extra, f"{where}.{key}")
    return problems


def response_schema(path: str, method: str, status: int = 200) -> Any:
    data = require()
    operation = data["paths"][path][method.lower()]
    response = _resolve(operation["responses"][str(status)])
    return response["content"]["application/json"]["schema"]


def check_response(path: str, method: str, body: Any, status: int = 200) -> None:
    """Fail the test if `body` does not match the documented response of the operation."""
    problems = validate(body, response_schema(path, method, status))
    assert not problems, f"{method.upper()} {path} response does not match OpenAPI:\n" + "\n".join(
        problems[:20]
    )


def match_path(concrete: str, method: str) -> str | None:
    """The documented path template that `concrete` instantiates (static segments first;
    a `*_id` placeholder only takes digits)."""
    data = spec()
    if data is None:
        return None
    parts = concrete.strip("/").split("/")
    best: tuple[int, str] | None = None
    for template, operations in data["paths"].items():
        if method.lower() not in operations:
            continue
        names = template.strip("/").split("/")
        if len(names) != len(parts):
            continue
        score = 0
        for name, part in zip(names, parts, strict=True):
            if name.startswith("{"):
                is_id = name.rstrip("}").endswith("id")
                if is_id and not part.isdigit():
                    break
                score += 1 if is_id else 0
            elif name != part:
                break
            else:
                score += 10
        else:
            if best is None or score > best[0]:
                best = (score, template)
    return best[1] if best else None
