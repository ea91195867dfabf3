"""Rendering through the API: highlighted code, KaTeX math, and the settings rendering depends
on (the sender's translate_emoticons, the realm's default_code_block_language)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from tests.support.api import Api

MakeUser = Callable[..., Api]


@pytest.fixture(scope="module")
def writer(make_user: MakeUser) -> Api:
    return make_user("Render Writer")


def rendered(api: Api, content: str) -> str:
    return str(api.ok("POST", "/messages/render", content=content)["rendered"])


def test_code_is_highlighted_with_zulips_markup(writer: Api) -> None:
    html = rendered(writer, "```py\nreturn 1\n```")
    assert html == (
        '<div class="codehilite" data-code-language="Python"><pre><span></span><code>'
        '<span class="k">return</span> <span class="mi">1</span>\n</code></pre></div>'
    )


def test_math_renders_katex_html_or_tex_error(writer: Api) -> None:
    html = rendered(writer, "$$x^2$$ and $$\\frac{$$")
    assert html.startswith('<p><span class="katex"><span class="katex-mathml"><math xmlns=')
    assert '<annotation encoding="application/x-tex">x^2</annotation>' in html
    assert html.endswith(' and <span class="tex-error">$$\\frac{$$</span></p>')
    block = rendered(writer, "```math\n\\sqrt{2}\n```")
    assert block.startswith('<p><span class="katex-display"><span class="katex">')


def test_hostile_tex_makes_no_link_and_no_script(writer: Api) -> None:
    html = rendered(writer, "$$\\href{javascript:alert(1)}{x}$$ $$\\htmlClass{x}{y}$$ <script>")
    assert "javascript:" not in html.replace("\\href{javascript:alert(1)}", "")
    assert "<script" not in html and "<a " not in html


def test_writers_cannot_forge_the_trusted_html_markers(writer: Api) -> None:
    # STX/ETX never survive the renderer's input, so the markers cannot be typed.
    html = rendered(writer, "\x02trusted:0:0\x03 $$y$$")
    assert "\x02" not in html and "trusted:0:0" in html


def test_emoticons_follow_the_senders_setting(writer: Api) -> None:
    assert rendered(writer, "hi :)") == "<p>hi :)</p>"
    writer.ok("PATCH", "/settings", translate_emoticons="true")
    try:
        assert rendered(writer, "hi :)") == (
            '<p>hi <span aria-label="smile" class="emoji emoji-1f604" role="img" title="smile">'
            ":smile:</span></p>"
        )
    finally:
        writer.ok("PATCH", "/settings", translate_emoticons="false")


def test_realm_default_code_block_language(owner: Api, writer: Api) -> None:
    owner.ok("PATCH", "/realm", default_code_block_language="python")
    try:
        html = rendered(writer, "```\nx = 1\n```")
        assert html.startswith('<div class="codehilite" data-code-language="Python">')
        assert rendered(writer, "```text\nx = 1\n```").startswith(
            '<div class="codehilite" data-code-language="Text only">'
        )
    finally:
        owner.ok("PATCH", "/realm", default_code_block_language="")


def test_sent_message_stores_the_rendered_math(writer: Api) -> None:
    stream = writer.ok("GET", "/streams")["streams"][0]["name"]
    sent = writer.ok("POST", "/messages", type="stream", to=stream, topic="m", content="$$a$$")
    message = writer.ok("GET", f"/messages/{sent['id']}")["message"]
    assert message["content"].startswith('<p><span class="katex">')


def test_a_time_without_a_date_is_on_the_day_it_is_sent(writer: Api) -> None:
    before = datetime.now(UTC).date()
    html = rendered(writer, "<time:10:00> <time:Dec 31 9:30 PKT> <time:soon>")
    after = datetime.now(UTC).date()
    days = {f"{day.isoformat()}T10:00:00Z" for day in (before, after)}
    found = html.split('datetime="', 1)[1].split('"', 1)[0]
    assert found in days
    assert f'<time datetime="{before.year}-12-31T04:30:00Z">Dec 31 9:30 PKT</time>' in html
    assert html.endswith('<span class="timestamp-error">Invalid time format: soon</span></p>')
