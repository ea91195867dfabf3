"""Register keys of Zulip features that teamchat does not offer, with the values Zulip sends
when the feature is off: Zoom OAuth, GIPHY, default channel groups, billing, the web app's
onboarding tour. Clients read these keys unconditionally; none of them can change here.
"""

from __future__ import annotations

from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ZulipError

# zulip-compat: Zulip's onboarding step names (zerver/lib/onboarding_steps.py). teamchat runs
# as a Zulip server with TUTORIAL_ENABLED off: no step is ever pending, marking one is valid.
ONBOARDING_STEPS = frozenset(
    {
        "visibility_policy_banner",
        "intro_inbox_view_modal",
        "intro_recent_view_modal",
        "first_stream_created_banner",
        "jump_to_conversation_banner",
        "non_interleaved_view_messages_fading",
        "interleaved_view_messages_fading",
        "intro_resolve_topic",
        "navigation_tour_video",
        "narrow_to_dm_with_welcome_bot_new_user",
    }
)


def check_mark_onboarding_step(name: str) -> None:
    """Accept marking a known step as seen (nothing is stored: none is ever shown)."""
    if name not in ONBOARDING_STEPS:
        raise ZulipError(f"Unknown onboarding_step: {name}")


@state_fetcher("onboarding_steps")
async def _onboarding_state(ctx: StateContext) -> None:
    ctx.state["onboarding_steps"] = []
    ctx.state["navigation_tour_video_url"] = None


@state_fetcher("default_stream_groups")
async def _default_stream_groups_state(ctx: StateContext) -> None:
    ctx.state["realm_default_stream_groups"] = []


@state_fetcher("video_calls")
async def _video_calls_state(ctx: StateContext) -> None:
    ctx.state["has_zoom_token"] = False


@state_fetcher("giphy")
async def _giphy_state(ctx: StateContext) -> None:
    # An empty key: clients hide the GIF picker (Zulip sends "" when GIPHY is not set up).
    ctx.state["giphy_api_key"] = ""


@state_fetcher("realm_billing")
async def _billing_state(ctx: StateContext) -> None:
    ctx.state["realm_billing"] = {"has_pending_sponsorship_request": False}


@state_fetcher("realm")
async def _realm_plan_state(ctx: StateContext) -> None:
    # Every plan feature is available on a self-hosted server: no upgrade text to show.
    ctx.state["upgrade_text_for_wide_organization_logo"] = ""


@state_fetcher("stop_words")
async def _stop_words_state(ctx: StateContext) -> None:
    # Full-text search ignores no word: every word typed must match (see store/message_search).
    ctx.state["stop_words"] = []
