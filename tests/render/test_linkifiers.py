"""Linkifier and code playground validation, and Zulip's topic_links."""

from __future__ import annotations

import pytest

from teamchat.render.markdown import (
    BadLinkifierError,
    BadPlaygroundTemplateError,
    Linkifier,
    compile_linkifier,
    topic_links,
    validate_playground_template,
)

ISSUES = Linkifier(r"#(?P<id>[0-9]+)", "https://github.com/zulip/zulip/issues/{id}")


@pytest.mark.parametrize(
    ("pattern", "url_template", "message"),
    [
        ("(foo", "https://x.com/", "Bad regular expression: missing ): (foo"),
        (
            r"ZUL-(?P<id>\d????)",
            "https://x.com/{id}",
            "Bad regular expression: bad repetition operator: ????",
        ),
        (r"ZUL-(?P<id>\d+)", "https://x.com/{id", "Invalid URL template."),
        (r"ZUL-(?P<id>\d+)", "https://x.com/{id}}", "Invalid URL template."),
        (r"ZUL-(?P<id>\d+)", "https://x.com/{i d}", "Invalid URL template."),
        (r"ZUL-(?P<id>\d+)", "", "Invalid URL template."),
        (
            r"ZUL-(?P<id>\d+)",
            "https://x.com/{id}/{name}",
            "Group 'name' in URL template is not present in linkifier pattern.",
        ),
        (
            r"ZUL-(?P<id>\d+)",
            "https://realm.com/my_realm_filter/",
            "Group 'id' in linkifier pattern is not present in URL template.",
        ),
        (
            r"ZUL-(?P<id>\d+)",
            "$fgfg",
            "Group 'id' in linkifier pattern is not present in URL template.",
        ),
    ],
)
def test_bad_linkifiers_are_refused_with_zulips_message(
    pattern: str, url_template: str, message: str
) -> None:
    with pytest.raises(BadLinkifierError) as caught:
        compile_linkifier(pattern, url_template)
    assert str(caught.value) == message
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("pattern", "url_template"),
    [
        (r"#(?P<id>[0-9]+)", "https://github.com/zulip/zulip/issues/{id}"),
        (
            r"(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)",
            "https://github.com/{org}/{repo}/pull/{id}",
        ),
        (r"RT(?P<id>[0-9]+)", "https://rt.example.com/Ticket/Display.html{?id}"),
        (r"search:(?P<q>\S+)", "https://example.com/search{?q}&lang=en%20US"),
        (r"hash:(?P<h>[0-9a-f]+)", "https://example.com/{+h}#{#h}"),
    ],
)
def test_good_linkifiers_compile(pattern: str, url_template: str) -> None:
    compiled = compile_linkifier(pattern, url_template)
    assert compiled.template.uri == url_template


def test_linkifier_expansion_percent_encodes_values() -> None:
    compiled = compile_linkifier(r"find:(?P<q>\S+)", "https://example.com/s/{q}")
    match = compiled.regex.search("find:a/b&c", 0)
    assert compiled.url_for(match) == "https://example.com/s/a%2Fb%26c"


@pytest.mark.parametrize(
    ("url_template", "message"),
    [
        ("https://template.com?test={test", "Invalid URL template."),
        (
            "https://template.com{?test,code}",
            '"code" should be the only variable present in the URL template',
        ),
        (
            "https://template.com?test={test}",
            'Missing the required variable "code" in the URL template',
        ),
        ("https://template.com", 'Missing the required variable "code" in the URL template'),
    ],
)
def test_bad_playground_templates_are_refused(url_template: str, message: str) -> None:
    with pytest.raises(BadPlaygroundTemplateError) as caught:
        validate_playground_template(url_template)
    assert str(caught.value) == message
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    "url_template",
    ["https://python.example.com/?code={code}", "https://play.rust-lang.org/{?code}"],
)
def test_good_playground_templates_pass(url_template: str) -> None:
    validate_playground_template(url_template)


def test_topic_links_finds_linkifier_matches_and_raw_urls_in_order() -> None:
    links = topic_links("fix #1234 see https://example.com/a and #56", [ISSUES])
    assert links == [
        {"text": "#1234", "url": "https://github.com/zulip/zulip/issues/1234"},
        {"text": "https://example.com/a", "url": "https://example.com/a"},
        {"text": "#56", "url": "https://github.com/zulip/zulip/issues/56"},
    ]


def test_topic_links_without_matches_is_empty() -> None:
    assert topic_links("just a topic", [ISSUES]) == []
    assert topic_links("", []) == []


def test_topic_links_earlier_linkifiers_win_overlaps() -> None:
    broad = Linkifier(r"(?P<name>[A-Z]+-[0-9]+)", "https://jira.example.com/browse/{name}")
    narrow = Linkifier(r"ZUL-(?P<id>[0-9]+)", "https://zulip.example.com/{id}")
    assert topic_links("ZUL-12", [narrow, broad]) == [
        {"text": "ZUL-12", "url": "https://zulip.example.com/12"}
    ]
    assert topic_links("ZUL-12", [broad, narrow]) == [
        {"text": "ZUL-12", "url": "https://jira.example.com/browse/ZUL-12"}
    ]


def test_topic_links_adjacent_matches_share_a_separator() -> None:
    assert [link["text"] for link in topic_links("#1 #2,#3", [ISSUES])] == ["#1", "#2", "#3"]


def test_topic_links_skip_invalid_linkifiers() -> None:
    broken = Linkifier("(oops", "https://x.com/")
    assert topic_links("#7", [broken, ISSUES]) == [
        {"text": "#7", "url": "https://github.com/zulip/zulip/issues/7"}
    ]


def test_topic_links_raw_url_after_punctuation() -> None:
    assert topic_links("(https://example.com/x) done", []) == [
        {"text": "https://example.com/x", "url": "https://example.com/x"}
    ]


def test_topic_links_bare_domains_link_as_https() -> None:
    # Zulip links a bare domain in a topic with https:// (in messages, http://).
    assert topic_links("see zulip.com/x, not setup.py", []) == [
        {"text": "zulip.com/x", "url": "https://zulip.com/x"}
    ]
    assert topic_links("javascript:alert(1)", []) == []
