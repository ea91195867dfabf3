"""POST /users/me/onboarding_steps."""

from __future__ import annotations

from teamchat.actions.org import absent_features
from teamchat.http.params import Params, as_int, as_str
from teamchat.http.routing import post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow


@post("/users/me/onboarding_steps")
async def mark_onboarding_step_as_read(params: Params, user: UserRow) -> JsonDict:
    name = params.required("onboarding_step", as_str)
    params.optional("schedule_navigation_tour_video_reminder_delay", as_int, None)
    absent_features.check_mark_onboarding_step(name)
    return params.success()
