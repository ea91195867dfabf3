"""The rest of the API's HTTP test files on PostgreSQL, in batches like those of
test_api_on_postgresql.py (a file of its own, so that the two test workers share the
batches): accounts and passwords, invitations and groups, uploads and thumbnails, push and
emails, outbound requests, and the hardening tests of the API. With both files, every HTTP
test file of the API runs on both databases in every run of the suite; the command line,
the clients' and the web client's tests run on PostgreSQL with `pytest --db=postgresql`.
"""

from __future__ import annotations

import pytest

from tests.postgresql.test_api_on_postgresql import run_on_postgresql

BATCHES = {
    "accounts, invitations and groups": [
        "tests/test_account_pages.py", "tests/test_web_login.py", "tests/test_login_limits.py",
        "tests/test_password_guard.py", "tests/test_password_reset.py", "tests/test_invites.py",
        "tests/test_user_groups.py", "tests/test_realm_emoji.py", "tests/test_idle_users.py",
        "tests/people/test_bots.py", "tests/people/test_guest_access_events.py",
        "tests/people/test_user_admin.py", "tests/test_zulip_parity.py",
    ],
    "uploads, notifications, outbound and hardening": [
        "tests/test_uploads.py", "tests/test_upload_names.py", "tests/test_thumbnails.py",
        "tests/test_uploads_s3.py", "tests/test_push.py", "tests/test_push_delivery.py",
        "tests/test_missed_message_emails.py", "tests/test_url_previews.py",
        "tests/test_external_content.py", "tests/test_external_url.py",
        "tests/test_outbound_guard.py", "tests/test_outbound_limits.py",
        "tests/test_outbound_ssrf.py", "tests/test_log_safety.py", "tests/test_lean_routes.py",
        "tests/events/test_poll_lane.py", "tests/webhooks/test_integration_list.py",
        "tests/webhooks/test_slack_incoming.py", "tests/hardening/test_fuzz_api.py",
        "tests/hardening/test_link_templates.py", "tests/hardening/test_malformed_input.py",
        "tests/hardening/test_realm_description.py", "tests/hardening/test_text_validation.py",
        "tests/hardening/test_full_disk.py",
    ],
}  # fmt: skip


@pytest.mark.timeout(1200)  # a whole batch of test files, not one test
@pytest.mark.parametrize("files", list(BATCHES.values()), ids=list(BATCHES))
def test_the_rest_of_the_api_tests_pass_on_postgresql(files: list[str]) -> None:
    run_on_postgresql(files)
