"""Nothing a client sends can write a line of its own into the server's log."""

from __future__ import annotations

import logging
import sys
import time

import httpx

from teamchat.lib.logsafe import TRACEBACK_INDENT, SafeFormatter, escape_controls
from tests.support.server import ServerProcess

FORGED = "2026-01-01 00:00:00,000 INFO teamchat.access: GET /admin 200"


def wait_for_log(server: ServerProcess, needle: str) -> str:
    deadline = time.monotonic() + 10
    while needle not in server.log() and time.monotonic() < deadline:
        time.sleep(0.05)
    return server.log()


def test_encoded_newline_in_the_path_cannot_start_a_log_line(server: ServerProcess) -> None:
    path = "/api/v1/forge-%0a" + FORGED.replace(" ", "%20") + "%0d%1b[2J%c2%85end"
    response = httpx.get(server.url + path)
    assert response.status_code == 404 and response.json()["result"] == "error"
    log = wait_for_log(server, "/api/v1/forge-")
    assert not any(line.startswith(FORGED[:10]) for line in log.splitlines())
    assert "\x1b" not in log and "\x85" not in log
    assert "/api/v1/forge-\\n" + FORGED + "\\r\\x1b[2J\\x85end" in log


def test_escape_controls_escapes_c0_c1_and_line_separators() -> None:
    assert escape_controls("a\r\nb\tc\x00\x1b\x7f\x9f\u2028\u2029d") == (
        "a\\r\\nb\\tc\\x00\\x1b\\x7f\\x9f\\u2028\\u2029d"
    )
    assert escape_controls("plain caf\u00e9 \U0001f600") == "plain caf\u00e9 \U0001f600"


def test_formatter_keeps_messages_on_one_line_and_indents_tracebacks() -> None:
    formatter = SafeFormatter("%(levelname)s %(message)s")
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "user %s", ("x\nINFO fake",), None)
    assert formatter.format(record) == "INFO user x\\nINFO fake"
    assert record.getMessage() == "user x\nINFO fake"  # the record is left as it was
    try:
        raise ValueError("bad\nINFO forged line")
    except ValueError:
        record = logging.LogRecord("t", logging.ERROR, __file__, 1, "boom", (), sys.exc_info())
    first, *rest = formatter.format(record).splitlines()
    assert first == "ERROR boom" and rest
    assert all(line.startswith(TRACEBACK_INDENT) for line in rest)
