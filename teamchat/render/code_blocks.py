"""Code blocks in Zulip's markup, `<div class="codehilite" data-code-language=...>`, for fenced
blocks (see fenced_blocks.py) and for blocks indented by four spaces.

No syntax highlighting: the code is escaped text. The language name is normalised the way
Zulip (via Pygments lexer names) shows it, e.g. `py` -> `Python`; unknown names are kept.
"""

from __future__ import annotations

import html
from xml.etree.ElementTree import Element, SubElement

from teamchat.render.md import Treeprocessor

_LANGUAGES: dict[str, tuple[str, ...]] = {
    "Python": ("python", "py", "py3", "python3", "sage", "bazel", "starlark"),
    "Python 2.x": ("python2", "py2"),
    "JavaScript": ("javascript", "js", "mjs", "cjs"),
    "TypeScript": ("typescript", "ts"),
    "JSON": ("json",),
    "HTML": ("html",),
    "CSS": ("css",),
    "Bash": ("bash", "sh", "ksh", "zsh", "shell"),
    "Bash Session": ("console", "shell-session"),
    "PowerShell": ("powershell", "pwsh", "ps1"),
    "C": ("c",),
    "C++": ("cpp", "c++"),
    "C#": ("csharp", "c#", "cs"),
    "Objective-C": ("objective-c", "objectivec", "obj-c", "objc"),
    "Java": ("java",),
    "Kotlin": ("kotlin",),
    "Scala": ("scala",),
    "Go": ("go", "golang"),
    "Rust": ("rust", "rs"),
    "Ruby": ("ruby", "rb", "duby"),
    "PHP": ("php", "php3", "php4", "php5"),
    "Perl": ("perl", "pl"),
    "Lua": ("lua",),
    "Haskell": ("haskell", "hs"),
    "Elixir": ("elixir", "ex", "exs"),
    "Erlang": ("erlang",),
    "Clojure": ("clojure", "clj"),
    "Swift": ("swift",),
    "Dart": ("dart",),
    "SQL": ("sql",),
    "YAML": ("yaml",),
    "TOML": ("toml",),
    "XML": ("xml",),
    "INI": ("ini", "cfg", "dosini"),
    "Markdown": ("markdown", "md"),
    "TeX": ("tex", "latex"),
    "Diff": ("diff", "udiff", "patch"),
    "Docker": ("docker", "dockerfile"),
    "Makefile": ("make", "makefile", "mf", "bsdmake"),
    "GraphQL": ("graphql",),
    "Text only": ("text",),
}
LANGUAGE_NAMES = {alias: name for name, aliases in _LANGUAGES.items() for alias in aliases}


def language_display_name(lang: str) -> str:
    """Return how Zulip labels a code block's language ("py" -> "Python")."""
    return LANGUAGE_NAMES.get(lang.lower(), lang)


def code_block_html(code: str, lang: str | None) -> str:
    """Return the HTML of a code block holding `code`, labelled with `lang` if given."""
    # zulip-compat: like Pygments, drop blank lines around the code and trailing spaces.
    lines = [line.rstrip() for line in code.strip("\n").split("\n")]
    body = html.escape("\n".join(lines), quote=False) + "\n"
    language = ""
    if lang:
        language = f' data-code-language="{html.escape(language_display_name(lang))}"'
    return f'<div class="codehilite"{language}><pre><span></span><code>{body}</code></pre></div>'


class IndentedCodeTreeprocessor(Treeprocessor):
    """Give blocks indented by four spaces (`<pre><code>`) the same markup as fenced ones.

    Runs after python-markdown's prettify step, which trims the code's trailing newlines.
    """

    def run(self, root: Element) -> Element | None:
        for parent in list(root.iter()):
            for index, child in enumerate(list(parent)):
                if child.tag == "pre" and len(child) == 1 and child[0].tag == "code":
                    parent[index] = _wrap(child[0])
                    parent[index].tail = child.tail
        return None


def _wrap(code: Element) -> Element:
    div = Element("div")
    div.set("class", "codehilite")
    pre = SubElement(div, "pre")
    SubElement(pre, "span")
    pre.append(code)
    return div
