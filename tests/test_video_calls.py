"""GET /calls/bigbluebutton/create: no BigBlueButton server is configured."""

from __future__ import annotations

from tests.support.api import Api, assert_error


def test_bigbluebutton_is_not_configured(owner: Api) -> None:
    assert_error(
        owner.get("/calls/bigbluebutton/create", meeting_name="standup"),
        "BigBlueButton is not configured.",
    )
    assert_error(
        owner.get("/calls/bigbluebutton/create"),
        "Missing 'meeting_name' argument",
        "REQUEST_VARIABLE_MISSING",
    )
