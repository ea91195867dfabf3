"""The web client's stylesheets are well formed: every rule closes before the next one starts.

Our CSS never nests rules (only `@media` and the like hold rules), so a `{` opened inside a
plain rule means a lost `}` — which browsers read as CSS nesting, silently dropping every rule
after it (a merge once did that to half of app.css)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[1] / "teamchat" / "web" / "static"


@pytest.mark.parametrize("css", sorted(STATIC.rglob("*.css")), ids=lambda p: p.name)
def test_no_rule_opens_inside_a_plain_rule(css: Path) -> None:
    text = re.sub(r"/\*.*?\*/", "", css.read_text(), flags=re.S)
    opened: list[str] = []  # the selectors of the open blocks
    start = 0
    for match in re.finditer(r"[{}]", text):
        if match.group() == "{":
            selector = text[start : match.start()].strip().split(";")[-1].strip()
            assert not opened or opened[-1].startswith("@"), (
                f"{css.name}: {selector!r} opens inside {opened[-1]!r} (a missing '}}'?)"
            )
            opened.append(selector)
        else:
            assert opened, f"{css.name}: a '}}' closes nothing at offset {match.start()}"
            opened.pop()
        start = match.end()
    assert not opened, f"{css.name}: {opened[-1]!r} is never closed"
