"""Search highlighting: match_content and match_subject on GET /messages and
/messages/matches_narrow, and the highlighter's rules."""

from __future__ import annotations

import json
from collections.abc import Callable

from teamchat.lib.search_highlight import highlight_html, highlight_topic, search_stems
from tests.support.api import Api
from tests.support.channels import stream_id, subscribe, unique_name

H = '<span class="highlight">'


def test_stems_match_what_the_index_matched() -> None:
    stems = search_stems(["deploying", '"Café crème"'])
    html = "<p>We <strong>deployed</strong> at the cafe; deploys, Deploy_me.</p>"
    assert highlight_html(html, stems) == (
        f"<p>We <strong>{H}deployed</span></strong> at the {H}cafe</span>; {H}deploys</span>,"
        f" {H}Deploy</span>_me.</p>"
    )


def test_never_inside_tags_or_entities() -> None:
    stems = search_stems(["span class amp href"])
    html = (
        '<p><a href="https://x.test/span">a span</a> &amp; <span class="user-mention">x</span></p>'
    )
    out = highlight_html(html, stems)
    assert out == (
        f'<p><a href="https://x.test/span">a {H}span</span></a> &amp; '
        '<span class="user-mention">x</span></p>'
    )
    # Words only in tags or entities: nothing to mark, the HTML comes back as it was.
    assert highlight_html(html, search_stems(["href user mention"])) == html
    assert highlight_topic("<b>span</b> & amp", stems) == (
        f"&lt;b&gt;{H}span</span>&lt;/b&gt; &amp; {H}amp</span>"
    )


def test_search_results_carry_highlights(make_user: Callable[..., Api]) -> None:
    alice = make_user("Alice Searches")
    name = unique_name("Search")
    subscribe(alice, name)
    sid = stream_id(alice, name)
    topic = "Deploy plans"
    hit = alice.ok(
        "POST",
        "/messages",
        type="stream",
        to=sid,
        topic=topic,
        content="We are **deploying** the zebras",
    )["id"]
    narrow = json.dumps(
        [
            {"operator": "channel", "operand": sid},
            {"operator": "search", "operand": "deployed zebra"},
        ]
    )
    [found] = alice.ok(
        "GET", "/messages", narrow=narrow, anchor="newest", num_before=10, num_after=0
    )["messages"]
    assert found["id"] == hit
    assert found["match_content"] == (
        f"<p>We are <strong>{H}deploying</span></strong> the {H}zebras</span></p>"
    )
    assert found["match_subject"] == f"{H}Deploy</span> plans"
    plain = alice.ok(
        "GET",
        "/messages",
        narrow=json.dumps([{"operator": "channel", "operand": sid}]),
        anchor="newest",
        num_before=1,
        num_after=0,
    )["messages"]
    assert "match_content" not in plain[0]
    matches = alice.ok("GET", "/messages/matches_narrow", msg_ids=json.dumps([hit]), narrow=narrow)
    assert matches["messages"][str(hit)] == {
        "match_content": found["match_content"],
        "match_subject": found["match_subject"],
    }
