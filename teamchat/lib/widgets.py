"""Message widgets: `/poll` and `/todo` content, bots' `widget_content`, and the checks on
the submessages readers attach (votes, options, tasks). Pure functions, Zulip's rules.
"""

from __future__ import annotations

import re

# zulip-compat: the client widgets' MAX_IDX.
MAX_IDX = 1000
WIDGET_COMMANDS = ("poll", "todo")
_LIST_MARKER = re.compile(r"(\s*[-*]?\s*)")
_OPTION_KEY = re.compile(r"(canned|[0-9]+),[0-9]+")

JsonDict = dict[str, object]


class WidgetError(ValueError):
    """A widget or submessage that breaks Zulip's rules; the message says which."""


def widget_from_content(content: str) -> JsonDict | None:
    """`/poll Question\\nA\\nB` or `/todo Title\\nTask: detail` as the widget submessage's
    content ({widget_type, extra_data}), or None for an ordinary message."""
    first = re.split(r"\s+|\n+", content)[0]
    command = first.removeprefix("/")
    if not first.startswith("/") or command not in WIDGET_COMMANDS:
        return None
    lines = content.replace(first, "", 1).splitlines()
    title = lines.pop(0).strip() if lines and lines[0] else ""
    items = [_LIST_MARKER.sub("", line.strip(), count=1) for line in lines]
    items = [item for item in items if item]
    if command == "poll":
        return {"widget_type": "poll", "extra_data": {"question": title, "options": items}}
    tasks = []
    for item in items:
        task, _, desc = item.partition(": ")
        tasks.append({"task": task.strip(), "desc": desc.strip()})
    return {"widget_type": "todo", "extra_data": {"task_list_title": title, "tasks": tasks}}


def check_widget_content(value: object) -> JsonDict:
    """A bot's `widget_content`: Zulip accepts only the `zform` choices widget."""
    if not isinstance(value, dict):
        raise WidgetError("widget_content is not a dict")
    for key in ("widget_type", "extra_data"):
        if key not in value:
            raise WidgetError(f"{key} is not in widget_content")
    extra = value["extra_data"]
    if not isinstance(extra, dict):
        raise WidgetError("extra_data is not a dict")
    if value["widget_type"] != "zform":
        raise WidgetError(f"unknown widget type: {value['widget_type']}")
    if "type" not in extra:
        raise WidgetError("zform is missing type field")
    if extra["type"] != "choices":
        raise WidgetError(f"unknown zform type: {extra['type']}")
    _check_fields("extra_data", extra, {"type": str, "heading": str, "choices": list}, exact=False)
    for index, choice in enumerate(extra["choices"]):
        name = f'extra_data["choices"][{index}]'
        if not isinstance(choice, dict):
            raise WidgetError(f"{name} is not a dict")
        _check_fields(
            name, choice, {"short_name": str, "long_name": str, "reply": str}, exact=False
        )
    return value


def check_poll_data(data: object, *, is_author: bool) -> None:
    """A poll submessage: a vote, the author's new question, or a new option."""
    kind = _kind("poll data", data)
    if kind == "vote":
        _check_fields("poll data", data, {"type": str, "key": str, "vote": int})
        if data["vote"] not in (1, -1):  # type: ignore[index]
            raise WidgetError("poll data['vote'] is not in [1, -1]")
        # Stricter than Zulip: the apps fail to read a poll whose vote key is not an option's
        # key ("canned,<index>" or "<sender id>,<index>").
        if not _OPTION_KEY.fullmatch(data["key"]):  # type: ignore[index]
            raise WidgetError("poll data['key'] is not an option key")
    elif kind == "question":
        if not is_author:
            raise WidgetError("You can't edit a question unless you are the author.")
        _check_fields("poll data", data, {"type": str, "question": str})
    elif kind == "new_option":
        _check_fields("poll data", data, {"type": str, "option": str, "idx": int})
        _check_idx("poll data['idx']", data["idx"])  # type: ignore[index]
    else:
        raise WidgetError(f"Unknown type for poll data: {kind}")


def check_todo_data(data: object, *, is_author: bool) -> None:
    """A to-do submessage: a new task, striking one, or the author's new title."""
    kind = _kind("todo data", data)
    if kind == "new_task":
        fields = {"type": str, "key": int, "task": str, "desc": str, "completed": bool}
        _check_fields("todo data", data, fields)
        _check_idx("todo data['key']", data["key"])  # type: ignore[index]
    elif kind == "strike":
        _check_fields("todo data", data, {"type": str, "key": str})
    elif kind == "new_task_list_title":
        if not is_author:
            raise WidgetError("You can't edit the task list title unless you are the author.")
        _check_fields("todo data", data, {"type": str, "title": str})
    else:
        raise WidgetError(f"Unknown type for todo data: {kind}")


def _kind(name: str, data: object) -> str:
    if not isinstance(data, dict):
        raise WidgetError(f"{name} is not a dict")
    if "type" not in data:
        raise WidgetError(f"type key is missing from {name}")
    if not isinstance(data["type"], str):
        raise WidgetError(f"{name}['type'] is not a string")
    return data["type"]


_TYPE_NAMES = {str: "a string", int: "an integer", bool: "a boolean", list: "a list"}


def _check_fields(name: str, data: object, fields: dict[str, type], *, exact: bool = True) -> None:
    """Each field present with its type (bools are not integers); `exact`: no others."""
    assert isinstance(data, dict)
    for key, kind in fields.items():
        if key not in data:
            raise WidgetError(f"{key} key is missing from {name}")
        value = data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise WidgetError(f"{name}['{key}'] is not {_TYPE_NAMES[kind]}")
    extra = sorted(set(data) - set(fields))
    if exact and extra:
        raise WidgetError(f"Unexpected arguments: {', '.join(extra)}")


def _check_idx(name: str, value: object) -> None:
    if not isinstance(value, int) or not 0 <= value <= MAX_IDX:
        raise WidgetError(f"{name} is not in the range 0 to {MAX_IDX}")
