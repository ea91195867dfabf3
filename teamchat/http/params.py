"""Request parameters: the query string merged with the form body, and Zulip's parsers.

`Params` records every name a handler reads; `success()` lists the rest in
`ignored_parameters_unsupported`. Parsers have the shape `(name, raw) -> value` and raise
Zulip's own messages.
"""

from __future__ import annotations

import email
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
from litestar import Request
from litestar.datastructures import FormMultiDict, UploadFile

from teamchat.errors import RequestVariableMissingError, ZulipError
from teamchat.lib.api_types import JsonDict
from teamchat.lib.json_input import decode_json
from teamchat.lib.limits import check_count, check_int_range

T = TypeVar("T")
Parser = Callable[[str, str], T]

_MISSING: Any = object()


class Params:
    """One request's parameters: form body values win over query-string values."""

    def __init__(self, values: dict[str, str], files: dict[str, UploadFile] | None = None) -> None:
        self.values = values
        self.files = files or {}
        self._read: set[str] = set()
        # Why the body could not be read, for the user dependency to raise once the request is
        # authenticated (Zulip answers a bad key before a bad body).
        self.unreadable: ZulipError | None = None

    @classmethod
    def unreadable_body(cls, error: ZulipError) -> Params:
        params = cls({})
        params.unreadable = error
        return params

    @classmethod
    async def from_request(cls, request: Request[Any, Any, Any]) -> Params:
        values: dict[str, str] = dict(request.query_params.items())
        files: dict[str, UploadFile] = {}
        content_type = request.headers.get("content-type", "")
        if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            form = await _read_form(request)
            for name, value in form.multi_items():
                if isinstance(value, UploadFile):
                    files[name] = value
                else:
                    values[name] = str(value)
        return cls(values, files)

    def has(self, name: str) -> bool:
        return name in self.values

    def required(self, name: str, parser: Parser[T]) -> T:
        self._read.add(name)
        if name not in self.values:
            raise RequestVariableMissingError(name)
        return parser(name, self.values[name])

    def optional(self, name: str, parser: Parser[T], default: T) -> T:
        self._read.add(name)
        if name not in self.values:
            return default
        return parser(name, self.values[name])

    def first_of(self, names: tuple[str, ...], parser: Parser[T], default: T = _MISSING) -> T:
        """The first of several aliases present (e.g. topic, subject); missing names the first."""
        for name in names:
            self._read.add(name)
        for name in names:
            if name in self.values:
                return parser(name, self.values[name])
        if default is _MISSING:
            raise RequestVariableMissingError(names[0])
        return default

    def mark_read(self, *names: str) -> None:
        self._read.update(names)

    def ignored(self) -> list[str]:
        return sorted(set(self.values) - self._read)

    def success(self, **data: object) -> JsonDict:
        """Zulip's success envelope, with ignored_parameters_unsupported when any were."""
        response: JsonDict = {"result": "success", "msg": "", **data}
        ignored = self.ignored()
        if ignored:
            response["ignored_parameters_unsupported"] = ignored
        return response


async def _read_form(request: Request[Any, Any, Any]) -> FormMultiDict:
    """The parsed form; a multipart field that is not UTF-8 is a 400 naming that field."""
    body = await request.body()  # cached: form() parses these bytes, and we may look again
    try:
        return await request.form()
    except UnicodeDecodeError:
        content_type = request.headers.get("content-type", "")
        raise InvalidUtf8Error(undecodable_field(content_type, body)) from None


def undecodable_field(content_type: str, body: bytes) -> str:
    """The name of the first multipart field whose value is not UTF-8 ("" if none is)."""
    head = f"Content-Type: {content_type}\r\n\r\n".encode("latin-1", "replace")
    message = email.message_from_bytes(head + body)
    for part in message.walk():
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            continue
        try:
            payload.decode("utf-8")
        except UnicodeDecodeError:
            return str(part.get_param("name", "", header="content-disposition"))
    return ""


class InvalidUtf8Error(ZulipError):
    def __init__(self, name: str) -> None:
        super().__init__(f'Argument "{name}" is not valid UTF-8.')


# -- parsers -------------------------------------------------------------------------------
def as_str(name: str, raw: str) -> str:
    return raw


def as_json_str(name: str, raw: str) -> str:
    """A string that clients may send raw or JSON-encoded ("\"general\"")."""
    if raw.startswith('"'):
        try:
            value = decode_json(raw)
        except msgspec.DecodeError:
            return raw
        if isinstance(value, str):
            return value
    return raw


# SQLite integers are signed 64-bit; larger values cannot name anything we store.
MAX_INT = 2**63 - 1


def _in_range(name: str, value: int) -> int:
    return check_int_range(name, value, MAX_INT)


def as_int(name: str, raw: str) -> int:
    # zulip-compat: Zulip reads integers as JSON (`Json[int]`, strict): text that is not JSON
    # (`many`, Arabic-Indic digits, `05`) "is not valid JSON"; JSON that is not an integer
    # (`1.5`, `true`) "is not an integer". ASCII digits only, as JSON has no others.
    value = as_json(name, raw)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ZulipError(f"{name} is not an integer")
    return _in_range(name, value)


def as_bool(name: str, raw: str) -> bool:
    # zulip-compat: JSON true/false; Zulip's older parser also took 1/0 and any case, and
    # clients still send them. Anything else is judged as Zulip's `Json[bool]` judges it.
    value = raw.strip().lower()
    if value in {"true", "1"}:
        return True
    if value in {"false", "0"}:
        return False
    as_json(name, raw)
    raise ZulipError(f"{name} is not a boolean")


def as_json(name: str, raw: str) -> object:
    try:
        return decode_json(raw)
    except msgspec.DecodeError:
        raise ZulipError(f"{name} is not valid JSON") from None


def as_json_list(name: str, raw: str) -> list[object]:
    value = as_json(name, raw)
    if not isinstance(value, list):
        raise ZulipError(f"{name} is not a list")
    return value


def as_json_dict(name: str, raw: str) -> dict[str, object]:
    value = as_json(name, raw)
    if not isinstance(value, dict):
        raise ZulipError(f"{name} is not a dict")
    return value


def as_int_list(name: str, raw: str) -> list[int]:
    items = as_json_list(name, raw)
    for index, item in enumerate(items):
        if not isinstance(item, int) or isinstance(item, bool):
            raise ZulipError(f"{name}[{index}] is not an integer")
        _in_range(f"{name}[{index}]", item)
    return items  # type: ignore[return-value]


def as_str_list(name: str, raw: str) -> list[str]:
    items = as_json_list(name, raw)
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise ZulipError(f"{name}[{index}] is not a string")
    return items  # type: ignore[return-value]


def as_optional_str_list(name: str, raw: str) -> list[str] | None:
    """A JSON list of strings, or JSON null (zulip-js sends `null` for "all")."""
    if raw.strip() == "null":
        return None
    return as_str_list(name, raw)


def one_of(*choices: str) -> Parser[str]:
    def parse(name: str, raw: str) -> str:
        if raw not in choices:
            raise ZulipError(f"Invalid {name}")
        return raw

    return parse


def as_int_in(*choices: int) -> Parser[int]:
    def parse(name: str, raw: str) -> int:
        value = as_int(name, raw)
        if value not in choices:
            raise ZulipError(f"Invalid {name}")
        return value

    return parse


def at_most(limit: int, parser: Parser[list[T]]) -> Parser[list[T]]:
    """`parser`, refusing lists longer than `limit` (see lib/limits.py)."""

    def parse(name: str, raw: str) -> list[T]:
        items = parser(name, raw)
        check_count(name, len(items), limit)
        return items

    return parse


def as_str_dict(name: str, raw: str) -> dict[str, str]:
    """A JSON object whose values are strings."""
    value = as_json_dict(name, raw)
    for key, item in value.items():
        if not isinstance(item, str):
            raise ZulipError(f'{name}["{key}"] is not a string')
    return value  # type: ignore[return-value]
