"""The API's HTTP tests again, with every test server on PostgreSQL.

Each batch below runs its test files in a pytest of its own with `--db=postgresql` (see
tests/conftest.py: the `server` and `start_server` fixtures then start on a fresh
PostgreSQL database of the cluster in tests/support/postgres.py). Any HTTP test file of the
API passes there (tests/support/rawdb.py reaches either database); these are the ones worth
their time in every run (the suite must stay under 30 minutes on two cores). The
batch "more of the API" took 56 s on a 2-core machine at load average 2, beside 160 s for
the other four.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.postgres import postgres_bin

ROOT = Path(__file__).resolve().parents[2]
BATCHES = {
    "messages": [
        "tests/test_messages_send.py", "tests/test_messages_fetch.py",
        "tests/test_message_flags.py", "tests/test_messages_edit.py",
        "tests/test_message_state.py", "tests/test_reactions.py", "tests/test_typing.py",
        "tests/test_topics.py", "tests/test_read_receipts.py", "tests/test_drafts.py",
        "tests/test_scheduled_messages.py", "tests/test_submessages.py",
        "tests/test_saved_snippets.py", "tests/test_zulip_client_messaging.py",
    ],
    "channels and events": [
        "tests/test_streams.py", "tests/test_subscriptions.py", "tests/test_channel_create.py",
        "tests/test_default_streams.py", "tests/test_events.py",
        "tests/test_state_vs_events.py", "tests/test_org_state_vs_events.py",
        "tests/test_subscriber_account_events.py", "tests/test_navigation_views.py",
    ],
    "people and organization": [
        "tests/test_auth.py", "tests/test_auth_cache.py", "tests/test_register_cache.py",
        "tests/test_users.py", "tests/test_new_accounts.py", "tests/test_realm.py",
        "tests/test_linkifiers.py", "tests/test_bot_storage.py",
        "tests/people/test_alert_words_and_muted_users.py",
        "tests/people/test_custom_profile_fields.py", "tests/people/test_user_status.py",
        "tests/people/test_settings.py", "tests/people/test_email_change.py",
        "tests/people/test_guest_visibility.py",
    ],
    "integrations and commands": [
        "tests/test_webhooks.py", "tests/ops/test_cli_live.py",
        "tests/ops/test_admin_commands.py",
    ],
    "more of the API": [
        "tests/test_http_conventions.py", "tests/test_server_settings.py",
        "tests/test_dev_auth.py", "tests/test_state_fetchers.py", "tests/test_channel_state.py",
        "tests/test_channel_folders.py", "tests/test_messaging_verify_action.py",
        "tests/test_messages_send_checks.py", "tests/test_message_limits.py",
        "tests/test_message_integration.py", "tests/test_message_reports.py",
        "tests/test_search_highlight.py", "tests/test_render_settings.py",
        "tests/test_video_previews.py", "tests/test_video_calls.py", "tests/test_retention.py",
        "tests/test_user_content.py", "tests/test_invite_channels.py",
        "tests/test_notification_bot.py", "tests/test_welcome_bot_test_message.py",
        "tests/test_outgoing_webhooks.py", "tests/test_embedded_bots.py",
        "tests/people/test_bot_defaults.py", "tests/people/test_realm_defaults.py",
        "tests/people/test_response_shapes.py", "tests/people/test_client_contracts.py",
        "tests/people/test_official_client.py", "tests/people/test_presence.py",
    ],
}  # fmt: skip


def run_on_postgresql(files: list[str]) -> None:
    """Run `files` in a pytest of their own, every test server on PostgreSQL."""
    postgres_bin()  # installs Debian's postgresql, or skips saying why
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-o", "addopts=", "-p", "no:cacheprovider", "-q",
         "--db=postgresql", *files],
        cwd=ROOT, capture_output=True, text=True, timeout=1200,
        env={**os.environ, "TEAMCHAT_TEST_DB": "postgresql"},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert " passed" in result.stdout.splitlines()[-1], result.stdout[-2000:]


@pytest.mark.timeout(1200)  # a whole batch of test files, not one test
@pytest.mark.parametrize("files", list(BATCHES.values()), ids=list(BATCHES))
def test_the_api_tests_pass_on_postgresql(files: list[str]) -> None:
    run_on_postgresql(files)
