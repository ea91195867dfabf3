"""The renderer against tests/render/cases.json, plus its API and safety guarantees."""

from __future__ import annotations

import dataclasses
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from teamchat.render.markdown import (
    PRIORITIES,
    Linkifier,
    MentionTarget,
    RealmEmoji,
    RenderContext,
    StreamTarget,
    render_markdown,
    render_plain_markdown,
)
from teamchat.render.sanitize import sanitize_html

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "cases.json").read_text())
FLAGS = (
    "mentioned_user_ids",
    "mentioned_group_ids",
    "stream_wildcard",
    "topic_wildcard",
    "alert_word_user_ids",
    "has_link",
    "has_image",
    "has_attachment",
    "is_me_message",
    "links",
)

IAGO = MentionTarget(5, "Iago")
HAMLET = MentionTarget(6, "Hamlet")
OTHELLO_A = MentionTarget(7, "Othello")
OTHELLO_B = MentionTarget(8, "Othello")  # two users with the same name
CORDELIA = MentionTarget(9, "Cordelia, Lear's daughter")
USERS = (IAGO, HAMLET, OTHELLO_A, OTHELLO_B, CORDELIA)
VERONA = StreamTarget(1, "Verona")
DEV_OPS = StreamTarget(2, "dev.ops team")  # a dot and a space, to exercise the URL encoding


def make_context() -> RenderContext:
    """Build the context every case in cases.json is rendered with."""
    users_by_name: dict[str, list[MentionTarget]] = {}
    for user in USERS:
        users_by_name.setdefault(user.full_name.casefold(), []).append(user)
    return RenderContext(
        users_by_name=users_by_name,
        users_by_id={user.user_id: user for user in USERS},
        groups_by_name={"support": 3, "Dev Team": 4, "role:members": 11},
        streams_by_name={VERONA.name: VERONA, DEV_OPS.name: DEV_OPS},
        realm_emoji={
            "green_tick": RealmEmoji(9, "/user_avatars/2/emoji/images/9.png"),
            "old_logo": RealmEmoji(10, "/user_avatars/2/emoji/images/10.png", deactivated=True),
        },
        linkifiers=[Linkifier(r"#(?P<id>[0-9]+)", "https://github.com/zulip/zulip/issues/{id}")],
        alert_words={HAMLET.user_id: ["danger"], OTHELLO_A.user_id: ["release notes"]},
        realm_url="https://chat.example.com",
    )


class _ScriptFinder(HTMLParser):
    """Collect whatever in parsed HTML could run script."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # KaTeX's MathML (<math>) is expected: it is KaTeX's output for $$...$$, never the
        # writer's markup, and scripts, handlers and script URLs are still looked for below.
        if tag in ("script", "style", "iframe", "object", "embed", "svg", "form"):
            self.problems.append(f"<{tag}> element")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"{name}= on <{tag}>")
            if value and value.strip().lower().startswith(("javascript:", "data:", "vbscript:")):
                self.problems.append(f"{name}={value!r} on <{tag}>")


def unsafe_parts(html: str) -> list[str]:
    """List script elements, on* handlers and script URLs in `html` (text content is fine)."""
    finder = _ScriptFinder()
    finder.feed(html)
    finder.close()
    if "<script" in html.lower():
        finder.problems.append("<script in the output")
    return finder.problems


@pytest.fixture(scope="module")
def ctx() -> RenderContext:
    return make_context()


def test_cases_file_covers_enough() -> None:
    names = [case["name"] for case in CASES]
    assert len(names) >= 50
    assert len(set(names)) == len(names), "case names must be unique"
    assert sum(name.startswith("xss_") for name in names) >= 10


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_render_case(case: dict[str, Any], ctx: RenderContext) -> None:
    # "context": the realm's or sender's settings a case depends on (emoticons, languages).
    rendered = render_markdown(case["input"], dataclasses.replace(ctx, **case.get("context", {})))
    assert rendered.html == case["expected_html"]
    for flag in FLAGS:
        if flag in case:
            value = getattr(rendered, flag)
            if isinstance(value, frozenset):
                value = sorted(value)
            elif isinstance(value, tuple):
                value = list(value)
            assert value == case[flag], flag
    assert unsafe_parts(rendered.html) == []


def test_xss_payload_text_is_escaped_not_dropped(ctx: RenderContext) -> None:
    html = render_markdown('<img src=x onerror="alert(1)">', ctx).html
    assert html == '<p>&lt;img src=x onerror="alert(1)"&gt;</p>'
    assert "<img" not in html


def test_attribute_injection_through_names_is_escaped() -> None:
    evil_user = MentionTarget(66, 'Evil" onmouseover="alert(1)')
    evil_stream = StreamTarget(7, '"><img src=x onerror=alert(1)>')
    ctx = RenderContext(
        users_by_name={evil_user.full_name.casefold(): [evil_user]},
        users_by_id={66: evil_user},
        groups_by_name={'<b onclick="x">': 12},
        streams_by_name={evil_stream.name: evil_stream},
        realm_emoji={"evil": RealmEmoji(1, "javascript:alert(1)")},
    )
    content = (
        '@**Evil" onmouseover="alert(1)** #**"><img src=x onerror=alert(1)>** '
        '@*<b onclick="x">* :evil:'
    )
    rendered = render_markdown(content, ctx)
    assert unsafe_parts(rendered.html) == []
    assert rendered.mentioned_user_ids == {66}
    assert 'data-user-id="66">@Evil" onmouseover="alert(1)</span>' in rendered.html
    assert "<img" in rendered.html and "javascript" not in rendered.html


def test_linkifier_producing_a_script_url_is_not_linked() -> None:
    ctx = RenderContext(
        users_by_name={},
        users_by_id={},
        groups_by_name={},
        streams_by_name={},
        realm_emoji={},
        linkifiers=[Linkifier(r"XSS-(?P<id>[0-9]+)", "javascript:alert({id})")],
    )
    rendered = render_markdown("see XSS-1", ctx)
    assert rendered.html == "<p>see XSS-1</p>"
    assert not rendered.has_link


def test_invalid_linkifier_in_context_is_skipped() -> None:
    ctx = RenderContext(
        users_by_name={},
        users_by_id={},
        groups_by_name={},
        streams_by_name={},
        realm_emoji={},
        linkifiers=[Linkifier("(unclosed", "https://x.com/"), Linkifier("T(?P<n>[0-9])", "/t/{n}")],
    )
    assert render_markdown("T1", ctx).html == '<p><a href="/t/1">T1</a></p>'


def test_plain_markdown_uses_an_empty_context() -> None:
    html = render_plain_markdown("**Team** page: https://example.com @**Iago** #**Verona** #12")
    assert html == (
        '<p><strong>Team</strong> page: <a href="https://example.com">https://example.com</a>'
        " @<strong>Iago</strong> #<strong>Verona</strong> #12</p>"
    )


def test_empty_context_renders_like_zulip_without_data() -> None:
    rendered = render_markdown("hello :tada:", RenderContext.empty())
    assert rendered.mentioned_user_ids == frozenset()
    assert 'class="emoji emoji-1f389"' in rendered.html


def test_rendering_is_repeatable_and_independent(ctx: RenderContext) -> None:
    first = render_markdown("@**Iago** ```x``` #1", ctx)
    render_markdown("@**Hamlet** @**all**", ctx)
    again = render_markdown("@**Iago** ```x``` #1", ctx)
    assert first == again
    assert again.mentioned_user_ids == {IAGO.user_id} and not again.stream_wildcard


def test_priorities_table_names_every_stage() -> None:
    assert set(PRIORITIES) == {
        "preprocessors",
        "blockprocessors",
        "inlinepatterns",
        "treeprocessors",
        "postprocessors",
    }
    # Raw HTML never passes: python-markdown's html_block and html processors are not used.
    assert "html_block" not in PRIORITIES["preprocessors"]
    assert "html" not in PRIORITIES["inlinepatterns"]
    inline = PRIORITIES["inlinepatterns"]
    # Code spans first, then mentions before emphasis eats their asterisks.
    assert inline["code_span"] > inline["user_mention"] > inline["strong"] > inline["emoji"]


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        (
            '<span class="emoji emoji-1f44d evil">x</span>',
            '<span class="emoji emoji-1f44d">x</span>',
        ),
        (
            '<span class="user-mention" data-user-id="5 onclick">x</span>',
            '<span class="user-mention">x</span>',
        ),
        ('<a href="javascript:alert(1)">x</a>', "<a>x</a>"),
        (
            '<a href="/#narrow/channel/1-x" target="_blank">x</a>',
            '<a href="/#narrow/channel/1-x">x</a>',
        ),
        (
            '<div class="spoiler-content" aria-hidden="false">x</div>',
            '<div class="spoiler-content">x</div>',
        ),
        ("<p onclick=alert(1)>x<script>alert(1)</script></p>", "<p>x</p>"),
        ('<img src="data:image/png;base64,xx" onerror="alert(1)">', "<img>"),
    ],
)
def test_sanitizer_keeps_only_what_the_renderer_produces(html: str, expected: str) -> None:
    assert sanitize_html(html) == expected


def test_pooled_parsers_carry_nothing_from_one_render_to_the_next(ctx: RenderContext) -> None:
    """Parsers are reused: every case rendered after every other kind of message, in another
    context in between (other people, groups, channels, emoji, alert words), matches a
    render by a brand-new parser, flags included."""
    from teamchat.render import markdown

    other = RenderContext(
        users_by_name={"iago": [MentionTarget(50, "Iago")]},
        users_by_id={50: MentionTarget(50, "Iago")},
        groups_by_name={"Support": 30},
        streams_by_name={"Verona": StreamTarget(10, "Verona")},
        realm_emoji={"green_tick": RealmEmoji(90, "/other/90.png", deactivated=True)},
        linkifiers=ctx.linkifiers,  # the same pool key: the same parsers serve both
        alert_words={50: ["danger"]},
        realm_url=ctx.realm_url,
    )

    def fresh(content: str, context: RenderContext) -> markdown.Rendered:
        markdown._POOL.clear()
        return render_markdown(content, context)

    expected = {case["name"]: fresh(case["input"], ctx) for case in CASES}
    expected_other = {case["name"]: fresh(case["input"], other) for case in CASES}
    markdown._POOL.clear()
    for case in [*CASES, *reversed(CASES)]:
        assert render_markdown(case["input"], other) == expected_other[case["name"]]
        assert render_markdown(case["input"], ctx) == expected[case["name"]], case["name"]
    pool = markdown._POOL[(ctx.realm_url, tuple(ctx.linkifiers))]
    assert 1 <= len(pool) <= markdown.POOL_PER_KEY
    assert all(md.ctx is not ctx and md.ctx is not other for md in pool)
