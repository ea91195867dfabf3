"""TeX math: inline `$$...$$` and ```` ```math ```` blocks, rendered to KaTeX's own HTML.

KaTeX (its unmodified katex.min.js, shipped in render/katex/) runs in QuickJS, an embedded
JavaScript engine from PyPI, so a plain `pip install` renders math without Node. Rendering is
CPU work, not I/O: a few milliseconds per formula, so formulas are cached and messages with
math are rendered off the event loop by the caller (`has_math`). Input KaTeX rejects becomes
Zulip's `tex-error` span with the typed text.

KaTeX's HTML (MathML, SVG, inline styles) is not something the allow-list sanitizer could
keep, and it needs no sanitizing: KaTeX escapes all text and, without `trust`, emits no links
or classes of the writer's choosing. So it is stashed as a marker (`trusted_marker`) that the
sanitizer passes untouched, and put back after sanitizing (`restore_trusted`).
"""

from __future__ import annotations

import functools
import html
import json
import re
import secrets
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree.ElementTree import Element

from teamchat.lib.lazy import lazy_module
from teamchat.render.context import CurrentRender, RenderState
from teamchat.render.md import AtomicString, CompiledInlineProcessor, MatchResult

if TYPE_CHECKING:
    import quickjs
else:  # the JavaScript engine: imported by the first formula
    quickjs = lazy_module("quickjs")

# zulip-compat: Zulip's TEX_RE: `$$` not next to another `$`, a body that does not start with
# `_` or a newline, and no word character right outside the dollars.
TEX_RE = re.compile(r"\B(?<!\$)\$\$(?P<body>[^\n_$](\\\$|[^$\n])*)\$\$(?!\$)\B")
_MAYBE_MATH_RE = re.compile(r"\$\$|^[ ]{0,3}(?:`{3,}|~{3,})[ ]*\{?\.?math\b", re.IGNORECASE | re.M)

KATEX_JS = Path(__file__).resolve().parent / "katex" / "katex.min.js"
FORMULA_MAX_CHARS = 10_000
KATEX_TIME_LIMIT_SECS = 2
KATEX_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024
CACHE_FORMULAS = 2048

# `renderToString` throws on bad input (throwOnError's default), like the KaTeX that Zulip
# runs; the result goes through JSON because the binding cannot return QuickJS rope strings.
_RENDER_JS = """
var console = {log: function () {}, warn: function () {}, error: function () {}};
function teamchatRender(tex, displayMode) {
  try {
    return JSON.stringify(katex.renderToString(tex, {displayMode: displayMode}));
  } catch (e) {
    return null;
  }
}
"""


class _Katex:
    """One QuickJS context with KaTeX loaded; a context is not thread-safe, hence the lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._render: Any = None

    def _load(self) -> Any:
        context = quickjs.Context()
        context.set_memory_limit(KATEX_MEMORY_LIMIT_BYTES)
        context.eval(KATEX_JS.read_text(encoding="utf-8"))
        context.eval(_RENDER_JS)
        context.set_time_limit(KATEX_TIME_LIMIT_SECS)
        return context.get("teamchatRender")

    def render(self, tex: str, display: bool) -> str | None:
        with self._lock:
            if self._render is None:
                self._render = self._load()
            try:
                result = self._render(tex, display)
            except (quickjs.JSException, quickjs.StackOverflow):
                # Out of time or memory: the context may be in any state, so start afresh.
                self._render = None
                return None
        return json.loads(result) if isinstance(result, str) else None


_KATEX = _Katex()


@functools.lru_cache(maxsize=CACHE_FORMULAS)
def render_tex(tex: str, display: bool = False) -> str | None:
    """Return KaTeX's HTML for `tex` (display style if `display`), or None if KaTeX rejects it."""
    if len(tex) > FORMULA_MAX_CHARS:
        return None
    return _KATEX.render(tex, display)


def has_math(content: str) -> bool:
    """Tell whether `content` may hold math, i.e. whether rendering it may run KaTeX."""
    return _MAYBE_MATH_RE.search(content) is not None


def tex_error_html(text: str) -> str:
    """Zulip's markup for TeX that KaTeX could not render: the typed text in a span."""
    return f'<span class="tex-error">{html.escape(text, quote=False)}</span>'


def trusted_marker(state: RenderState, trusted_html: str) -> str:
    """Keep `trusted_html` aside and return the marker that stands for it until sanitizing
    is done. Markers hold STX/ETX, which python-markdown strips from every input, and a
    random nonce per render, so no text a user writes can pose as one."""
    if not state.trusted_nonce:
        state.trusted_nonce = secrets.token_hex(8)
    state.trusted_html.append(trusted_html)
    return f"\x02trusted:{state.trusted_nonce}:{len(state.trusted_html) - 1}\x03"


def restore_trusted(sanitized: str, state: RenderState) -> str:
    """Put the HTML kept aside by `trusted_marker` back in place of its markers."""
    if not state.trusted_html:
        return sanitized
    prefix = f"\x02trusted:{state.trusted_nonce}:"
    for index, trusted_html in enumerate(state.trusted_html):
        sanitized = sanitized.replace(f"{prefix}{index}\x03", trusted_html)
    return sanitized


def math_block_html(state: RenderState, text: str) -> str:
    """A ```math block: each paragraph a display formula (Zulip's format_tex)."""
    parts = []
    for paragraph in text.split("\n\n"):
        rendered = render_tex(paragraph, display=True)
        if rendered is None:
            parts.append(tex_error_html(paragraph))
        else:
            parts.append(trusted_marker(state, rendered))
    return "\n\n".join(parts)


class TexProcessor(CurrentRender, CompiledInlineProcessor):
    """`$$x^2$$` becomes KaTeX's inline HTML, or a `tex-error` span with the typed text."""

    def __init__(self) -> None:
        super().__init__(TEX_RE)

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        body = m.group("body")
        rendered = render_tex(body, display=False)
        if rendered is None:
            error = Element("span")
            error.set("class", "tex-error")
            error.text = AtomicString(f"$${body}$$")
            return error, m.start(), m.end()
        stash = getattr(self, "md").htmlStash  # noqa: B009 (md is set by the parser)
        return stash.store(trusted_marker(self.state, rendered)), m.start(), m.end()
