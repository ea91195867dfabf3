"""The server's external URL: `serve` pins it in the database at every start. A URL the
operator gave (--external-url, TEAMCHAT_EXTERNAL_URL) stays until another is given; without
one, the pin follows the address `serve` binds, so links never name a port nobody serves.
A request's Host header never decides it."""

from __future__ import annotations

from teamchat.runtime import Runtime
from teamchat.store import server_settings


async def do_pin_external_url(rt: Runtime, bound: str, given: str | None) -> tuple[str, str | None]:
    """Pin the URL for a server bound at `bound` (`given`: the operator's, if any); return
    (the pinned URL, the one it replaced or None) and make it `rt.external_url`."""
    async with rt.db.write() as tx:
        pinned = await server_settings.get_external_url(tx)
        was_given = await server_settings.external_url_was_given(tx)
        if given is not None:
            url = given
        elif pinned is not None and was_given:
            url = pinned
        else:
            url = bound
        if url != pinned or (given is not None) != was_given:
            await server_settings.set_external_url(
                tx, url, given=given is not None or (was_given and url == pinned)
            )
    rt.external_url = url
    return url, pinned if pinned not in (None, url) else None
