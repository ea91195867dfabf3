"""Slack's mrkdwn to Zulip Markdown, case by case (the pure converter the Slack import uses)."""

from __future__ import annotations

import pytest

from teamchat.lib.slack_mrkdwn import SlackNames, convert

NAMES = SlackNames(users={"U1": (7, "Ada Lovelace")}, channels={"C1": "general"})


@pytest.mark.parametrize(
    ("mrkdwn", "markdown"),
    [
        ("*bold* and _italic_ and ~gone~", "**bold** and *italic* and ~~gone~~"),
        ("(*in parens*), _end_.", "(**in parens**), *end*."),
        ("snake_case_name and 2*3*4 and a~b~c", "snake_case_name and 2*3*4 and a~b~c"),
        ("* not bold * and _ not italic _", "* not bold * and _ not italic _"),
        ("*bold <@U1>*", "**bold @**Ada Lovelace****"),
        ("<https://x.example/a_b_c|the _docs_>", "[the _docs_](https://x.example/a_b_c)"),
        ("<https://x.example/_path_>", "https://x.example/_path_"),
        ("<mailto:a@b.example|a@b.example>", "a@b.example"),
        ("<mailto:a@b.example|write to us>", "[write to us](mailto:a@b.example)"),
        ("<@U1> <@U1|ada> <@U9> <@U9|ghost>", "@**Ada Lovelace** @**Ada Lovelace** @U9 @ghost"),
        ("<#C1> <#C1|old-name> <#C9|other>", "#**general** #**general** #**other**"),
        ("<!here> <!channel> <!everyone>", "@**channel** @**channel** @**all**"),
        ("<!subteam^S1|@design> <!date^1700000000^{date}|Nov 14>", "@design Nov 14"),
        ("`*code*` and ```_block_ <@U1>```", "`*code*` and \n```\n_block_ <@U1>\n```"),
        ("1 &lt; 2 &amp;&amp; 3 &gt; 2", "1 < 2 && 3 > 2"),
        ("&gt; quoted *line*", "> quoted **line**"),
        ("a \ue000 private \ue001 use", "a  private  use"),
    ],
)
def test_convert(mrkdwn: str, markdown: str) -> None:
    assert convert(mrkdwn, NAMES).content == markdown


def test_what_the_conversion_finds() -> None:
    found = convert("<@U1> see <https://x.example> <!here>", NAMES)
    assert found.mentioned_user_ids == {7} and found.wildcard and found.has_link
    plain = convert("nothing *special*", NAMES)
    assert not plain.mentioned_user_ids and not plain.wildcard and not plain.has_link
