"""`content_html_diff`: the new rendered content with inserted and deleted text marked.

Word-level diff over the text between tags; tags come from the new version. Deleted text is
wrapped in `<span class="highlight_text_deleted">`, inserted text in
`<span class="highlight_text_inserted">`, as Zulip's highlight_html_differences does.
"""

from __future__ import annotations

import difflib
import re

_TOKEN = re.compile(r"<[^>]*>|[^<\s]+|\s+")


def _tokens(html: str) -> list[str]:
    return _TOKEN.findall(html)


def _is_tag(token: str) -> bool:
    return token.startswith("<")


def _mark(tokens: list[str], kind: str) -> str:
    """Wrap the text runs of `tokens` (tags pass through unwrapped)."""
    out: list[str] = []
    run: list[str] = []
    for token in tokens:
        if _is_tag(token):
            if run:
                out.append(f'<span class="highlight_text_{kind}">{"".join(run)}</span>')
                run = []
            out.append(token)
        else:
            run.append(token)
    if run:
        out.append(f'<span class="highlight_text_{kind}">{"".join(run)}</span>')
    return "".join(out)


def highlight_html_differences(old: str, new: str) -> str:
    """The new HTML with the differences from the old one marked up."""
    a, b = _tokens(old), _tokens(new)
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append("".join(b[j1:j2]))
            continue
        if op in ("delete", "replace"):
            deleted = [t for t in a[i1:i2] if not _is_tag(t)]
            if "".join(deleted).strip():
                out.append(_mark(deleted, "deleted"))
        if op in ("insert", "replace"):
            out.append(_mark(b[j1:j2], "inserted"))
    return "".join(out)
