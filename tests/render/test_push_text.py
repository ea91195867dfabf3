"""The plain text of rendered messages in notifications: math as its TeX, once."""

from __future__ import annotations

from teamchat.lib.push_content import mobile_push_content
from teamchat.render.markdown import RenderContext, render_markdown


def text_of(content: str) -> str:
    return mobile_push_content(render_markdown(content, RenderContext.empty()).html)


def test_math_is_its_tex_source_once() -> None:
    assert text_of("area $$\\pi r^2$$ ok") == "area $$\\pi r^2$$ ok"
    assert text_of("```math\n\\sqrt{2}\n```\n\nafter") == "$$\\sqrt{2}$$\nafter"


def test_code_is_its_text() -> None:
    assert text_of("```python\nx = 1\n```") == "x = 1"
