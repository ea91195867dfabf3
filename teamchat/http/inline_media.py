"""What rendered messages' image previews load: GET /user_uploads/thumbnail/<path>/<format>
(with the upload's own access rules), GET /external_content/<digest>/<hex URL> (Zulip's camo
proxy for other sites' images) and the loading spinner shown while a thumbnail is made."""

from __future__ import annotations

from litestar import Response
from litestar.response import Stream

from teamchat.actions.messages import external_images, thumbnails
from teamchat.actions.messages import uploads as upload_actions
from teamchat.http.routing import get
from teamchat.http.user_content import user_content_response
from teamchat.records import UserRow
from teamchat.runtime import Runtime

# zulip-compat: the spinner URL Zulip writes into messages whose thumbnail is being made.
SPINNER_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" viewBox="0 0 40 40">'
    '<circle cx="20" cy="20" r="16" fill="none" stroke="#888" stroke-opacity=".3" '
    'stroke-width="4"/><path d="M20 4a16 16 0 0 1 16 16" fill="none" stroke="#444" '
    'stroke-width="4"><animateTransform attributeName="transform" type="rotate" '
    'from="0 20 20" to="360 20 20" dur="0.9s" repeatCount="indefinite"/></path></svg>'
)


@get("/user_uploads/thumbnail/{realm_id:int}/{path:path}")
async def serve_thumbnail(realm_id: int, path: str, user: UserRow, rt: Runtime) -> Stream:
    upload_path, _, format_name = path.rpartition("/")
    row = await upload_actions.access_upload(rt, user, f"{realm_id}{upload_path}")
    data = await thumbnails.get_thumbnail(rt, row, format_name)
    return await user_content_response(data, size=len(data), cache_control="private, max-age=86400")


@get("/external_content/{digest:str}/{hex_url:str}", opt={"public": True})
async def serve_external_content(digest: str, hex_url: str, rt: Runtime) -> Stream:
    _, data = await external_images.access_external_image(rt, digest, hex_url)
    return await user_content_response(data, size=len(data), cache_control="public, max-age=86400")


@get("/static/images/loading/loader-black.svg", opt={"public": True})
async def serve_loading_spinner() -> Response[str]:
    return Response(
        SPINNER_SVG,
        media_type="image/svg+xml",
        headers={
            "Cache-Control": "public, max-age=86400",
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
        },
    )


ROOT_ROUTES = [serve_thumbnail, serve_external_content, serve_loading_spinner]
