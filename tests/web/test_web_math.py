"""Math and code in the web client: KaTeX's HTML from the server, laid out with KaTeX's style
sheet and fonts from our own origin, under the page's strict Content-Security-Policy."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import expect

from tests.support.browser import DESKTOP, PHONE, log_in, message_with
from tests.support.server import ServerProcess

CONTENT = (
    "Math inline $$x^2 + y^2 = \\sqrt{z}$$ and displayed:\n\n"
    "```math\n\\int_0^1 x\\,dx = \\frac{1}{2}\n```\n\n"
    "```python\ndef double(x):\n    return x * 2\n```"
)
SHOTS = Path(os.environ.get("TEAMCHAT_SCREENSHOTS", "/tmp/teamchat-screenshots"))


def test_math_is_laid_out_by_katex_in_light_and_dark(
    server: ServerProcess,
    open_page,
    pair,  # type: ignore[no-untyped-def]
) -> None:
    person, _other, _channel, stream_id = pair
    person.ok("POST", "/messages", type="stream", to=stream_id, topic="math", content=CONTENT)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for viewport, scheme in ((DESKTOP, "light"), (PHONE, "dark")):
        page = open_page(viewport=viewport, color_scheme=scheme)
        fonts: list[str] = []
        page.on("request", lambda request, found=fonts: found.append(request.url))
        log_in(page, server.url, person.email)
        page.goto(f"{server.url}/#narrow/channel/{stream_id}-x/topic/math")
        message = message_with(page, "Math inline")
        expect(message.locator(".katex")).to_have_count(2)
        expect(message.locator(".katex-display")).to_have_count(1)
        keywords = message.locator('.codehilite[data-code-language="Python"] .k')
        expect(keywords).to_have_text(["def", "return"])
        # KaTeX's positions apply (through the CSSOM: the CSP keeps markup styles off) and
        # its style sheet hides the MathML copy that is there for screen readers.
        strut = message.locator(".katex .strut").first
        assert strut.evaluate("node => node.getBoundingClientRect().height") > 5
        assert (
            message.locator(".katex-mathml").first.evaluate(
                "node => getComputedStyle(node).position"
            )
            == "absolute"
        )
        page.wait_for_function("document.fonts.status === 'loaded'")
        fonts = [url for url in fonts if "/katex/fonts/" in url]
        assert fonts and all(url.startswith(server.url) for url in fonts)
        message.screenshot(path=str(SHOTS / f"math-{scheme}-{viewport['width']}.png"))
