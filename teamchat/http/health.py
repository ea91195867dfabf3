"""GET /health (at the site root, no credentials): for monitors and container probes."""

from __future__ import annotations

from teamchat.actions.ops.health import check_health
from teamchat.http.params import Params
from teamchat.http.routing import get
from teamchat.lib.api_types import JsonDict
from teamchat.runtime import Runtime


@get("/health", opt={"public": True})
async def health(params: Params, rt: Runtime) -> JsonDict:
    return params.success(**await check_health(rt))


ROOT_ROUTES = [health]
