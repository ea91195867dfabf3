"""Markdown rendering of custom profile field values (Short text, Paragraph): pure, no I/O."""

from __future__ import annotations

import markdown


def render_profile_value(text: str) -> str:
    """HTML for a profile value; raw HTML in the input is escaped, never passed through."""
    md = markdown.Markdown(extensions=["sane_lists"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return str(md.convert(text))
