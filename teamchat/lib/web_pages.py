"""The HTML of the web client's pages: the frame of every page, the log-in form and the app
shell. Pure: text in, HTML out. No inline script or style: the Content-Security-Policy forbids
both (every HTML response gets PAGE_HEADERS, see teamchat/http/html.py)."""

from __future__ import annotations

import math
from html import escape

# Every page of the web client: nothing from another origin, no inline script, style or eval.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; media-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def page(title: str, css_url: str, body: str, head: str = "", icon_url: str = "") -> str:
    """A whole HTML document: `body` is the <body> element, `head` extra head elements.
    `icon_url`: the versioned SVG icon (cached for a year); else /favicon.ico."""
    icon = (
        f'<link rel="icon" href="{escape(icon_url)}" type="image/svg+xml">'
        if icon_url
        else '<link rel="icon" href="/favicon.ico" sizes="32x32">'
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"{icon}"
        f'<title>{escape(title)}</title><link rel="stylesheet" href="{escape(css_url)}">'
        f"{head}</head>{body}</html>"
    )


def box_page(title: str, css_url: str, inner: str, *, scripts: tuple[str, ...] = ()) -> str:
    """A page of the log-in family: one centred box holding `inner` (HTML)."""
    head = "".join(f'<script type="module" src="{escape(url)}"></script>' for url in scripts)
    body = f'<body class="page"><main class="login-box">{inner}</main></body>'
    return page(title, css_url, body, head)


def problem_line(problem: str | None) -> str:
    """The alert paragraph a form shows above itself, or nothing."""
    return f'<p class="problem" role="alert">{escape(problem)}</p>' if problem else ""


def notice_line(notice: str | None) -> str:
    """A status paragraph (a success or a reminder), or nothing."""
    return f'<p class="notice" role="status">{escape(notice)}</p>' if notice else ""


def wait_in_words(seconds: float) -> str:
    """How long to wait, as people say it: "30 minutes", "1 hour", "a few seconds"."""
    if seconds < 10:
        return "a few seconds"
    if seconds < 90:
        return f"{math.ceil(seconds)} seconds"
    minutes = math.ceil(seconds / 60)
    if minutes < 90:
        return "1 minute" if minutes == 1 else f"{minutes} minutes"
    hours = math.ceil(minutes / 60)
    return "1 hour" if hours == 1 else f"{hours} hours"


def login_page(
    *,
    realm_name: str,
    css_url: str,
    username: str = "",
    problem: str = "",
    notice: str = "",
) -> str:
    """The log-in form (POST /login/), with the problem of the last attempt if any."""
    body = (
        '<body class="page"><main class="login-box">'
        f"<h1>Log in to {escape(realm_name)}</h1>{notice_line(notice)}{problem_line(problem)}"
        '<form method="post" action="/login/" id="login-form">'
        '<label for="username">Email</label>'
        '<input id="username" name="username" type="email" autocomplete="username" required '
        f'autofocus value="{escape(username)}">'
        '<label for="password">Password</label>'
        '<input id="password" name="password" type="password" '
        'autocomplete="current-password" required>'
        '<button type="submit">Log in</button></form>'
        '<p class="aside"><a href="/accounts/password/reset/" id="forgot-password">'
        "Forgot your password?</a></p></main></body>"
    )
    return page(f"Log in · {realm_name}", css_url, body)


def app_shell(
    *,
    realm_name: str,
    css_url: str,
    script_url: str,
    module_urls: tuple[str, ...] = (),
    icon_url: str = "",
    extra_css_urls: tuple[str, ...] = (),
) -> str:
    """The page the client's modules fill in; `data-` attributes carry no user content.
    `module_urls` are preloaded at once instead of as each import is discovered;
    `extra_css_urls` are more style sheets (KaTeX's, for math in messages)."""
    preloads = "".join(f'<link rel="modulepreload" href="{escape(url)}">' for url in module_urls)
    sheets = "".join(f'<link rel="stylesheet" href="{escape(url)}">' for url in extra_css_urls)
    head = f'{sheets}<script type="module" src="{escape(script_url)}"></script>{preloads}'
    body = (
        '<body class="app"><header class="topbar">'
        '<button type="button" id="menu-toggle" class="icon-button" aria-label="Show channels"'
        ' aria-expanded="false">☰</button>'
        f'<a class="realm-name" href="#">{escape(realm_name)}</a>'
        '<form id="search" class="search" role="search">'
        '<input id="search-input" type="search" name="q" placeholder="Search"'
        ' aria-label="Search messages" autocomplete="off"></form>'
        '<p id="connection" class="connection" role="status" hidden></p>'
        '<span class="spacer"></span><span id="me" class="me"></span>'
        '<button type="button" id="settings-button" class="link-button">Settings</button>'
        '<button type="button" id="logout" class="link-button">Log out</button></header>'
        '<div class="layout"><nav id="left" class="left" aria-label="Channels and conversations">'
        "</nav>"
        '<main class="center"><h1 id="narrow-title" class="narrow-title">All messages</h1>'
        '<div id="messages" class="messages" role="region" aria-label="Messages"></div>'
        '<p id="typing" class="typing" aria-live="polite"></p>'
        '<form id="compose" class="compose" autocomplete="off"></form></main>'
        '<aside id="people" class="people" aria-label="People"></aside></div>'
        '<dialog id="settings" class="settings" aria-labelledby="settings-title"></dialog></body>'
    )
    return page(realm_name, css_url, body, head, icon_url)
