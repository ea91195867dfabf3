"""Log lines nobody can forge: control characters in logged text are written escaped.

A request path, a header or an exception message may carry CR, LF or terminal escapes; written
raw they would start a fake log line or rewrite the operator's terminal.
"""

from __future__ import annotations

import logging
import re

# C0 controls, DEL, C1 controls, and the Unicode line and paragraph separators.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Continuation lines of a traceback start with this, so they never look like a new record.
TRACEBACK_INDENT = "  | "


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group()
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) <= 0xFF else f"\\u{ord(ch):04x}")


def escape_controls(text: str) -> str:
    """Return `text` with every control character written as an escape (\\n, \\x1b, ...)."""
    return _CONTROL_RE.sub(_escape_char, text)


class SafeFormatter(logging.Formatter):
    """A Formatter whose records are always one line, plus an indented traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        saved = record.msg, record.args, record.exc_text
        record.msg, record.args = escape_controls(record.getMessage()), None
        try:
            return super().format(record)
        finally:
            record.msg, record.args, record.exc_text = saved

    def formatException(self, ei: logging._SysExcInfoType) -> str:
        lines = super().formatException(ei).splitlines()
        return "\n".join(TRACEBACK_INDENT + escape_controls(line) for line in lines)

    def formatStack(self, stack_info: str) -> str:
        return "\n".join(
            TRACEBACK_INDENT + escape_controls(line) for line in stack_info.splitlines()
        )


def install(level: str, fmt: str) -> None:
    """Send all logging (ours, uvicorn's, Litestar's) to stderr through a SafeFormatter."""
    handler = logging.StreamHandler()
    handler.setFormatter(SafeFormatter(fmt))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
