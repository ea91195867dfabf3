"""The README stays a newcomer's README, and the documents a user reads do not point at
things a user cannot see (issue numbers, internal specifications) or at missing files."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
USER_DOCS = [README, ROOT / "SECURITY.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _prose(path: Path) -> str:
    """The document without code blocks and code spans (their brackets are not links)."""
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {
        _slug(line.lstrip("#"))
        for line in path.read_text().splitlines()
        if line.startswith("#") and not line.startswith("#!")
    }


def test_the_readme_is_short() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move reference text to docs/"


def test_user_documents_name_no_issue_numbers_or_internal_specs() -> None:
    for path in USER_DOCS:
        text = path.read_text()
        assert not re.search(r"\bissues? #?\d+", text, re.I), path
        assert not re.search(r"\bSPEC\b", text), path


def test_every_relative_link_resolves() -> None:
    broken = []
    for path in USER_DOCS:
        for target in LINK.findall(_prose(path)):
            if re.match(r"[a-z]+:", target):  # https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.exists():
                broken.append(f"{path.name}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{path.name}: {target} (no such heading)")
    assert not broken, broken
    assert (ROOT / "docs" / "api.md").exists() and "docs/api.md" in README.read_text()
