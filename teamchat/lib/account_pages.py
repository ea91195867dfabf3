"""The HTML of the account pages outside the app: password reset, the API key (shown after the
password is entered again), the page for an unknown address, and the development email log.
Pure: text in, HTML out, in the log-in page's style."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from teamchat.lib.signup_pages import new_password_fields
from teamchat.lib.web_pages import box_page, notice_line, page, problem_line

_URL_RE = re.compile(r"https?://[^\s<>\"']+")


def _csrf_field(csrf_token: str) -> str:
    return f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(csrf_token)}">'


def reset_request_form(
    *, realm_name: str, css_url: str, email: str = "", problem: str | None = None
) -> str:
    """Step 1 (GET /accounts/password/reset/): the address to send a reset link to."""
    inner = (
        f"<h1>Reset your password</h1>{problem_line(problem)}"
        f"<p>Enter the email address of your {escape(realm_name)} account. We will email you "
        "a link to choose a new password.</p>"
        '<form method="post" action="/accounts/password/reset/" id="reset-form">'
        '<label for="email">Email</label>'
        '<input id="email" name="email" type="email" autocomplete="username" required '
        f'autofocus value="{escape(email)}">'
        '<button type="submit">Send reset link</button></form>'
        '<p class="aside"><a href="/login/">Back to log in</a></p>'
    )
    return box_page(f"Reset your password · {realm_name}", css_url, inner)


def reset_requested(*, css_url: str, email: str, hours: int) -> str:
    """Step 2: the same answer whether or not the address has an account."""
    inner = (
        "<h1>Check your email</h1>"
        f"<p>If <strong>{escape(email)}</strong> is the address of an account here, we have "
        "sent it an email with a link to reset the password.</p>"
        f"<p>The link works once, for {hours} hours. Nothing arrived? Look in your spam "
        "folder, check the address, or ask an administrator of the organization.</p>"
        '<p class="aside"><a href="/login/">Back to log in</a></p>'
    )
    return box_page("Check your email", css_url, inner)


def set_password_form(
    *,
    realm_name: str,
    css_url: str,
    script_url: str,
    action: str,
    email: str,
    problem: str | None = None,
) -> str:
    """Step 3 (the emailed link): choose the new password."""
    inner = (
        f"<h1>Choose a new password</h1>{problem_line(problem)}"
        f"<p>For <strong>{escape(email)}</strong> in {escape(realm_name)}. Setting it logs "
        "you out everywhere else.</p>"
        f'<form method="post" action="{escape(action)}" id="set-password-form">'
        # Lets password managers save the new password under the right account.
        '<input type="email" name="username" autocomplete="username" hidden '
        f'value="{escape(email)}">'
        f"{new_password_fields(label='New password', name='new_password')}"
        '<label for="new_password_confirm">New password again</label>'
        '<input id="new_password_confirm" name="new_password_confirm" type="password" '
        'autocomplete="new-password" required>'
        '<button type="submit">Set password</button></form>'
    )
    return box_page(f"Choose a new password · {realm_name}", css_url, inner, scripts=(script_url,))


def api_key_password_form(
    *, realm_name: str, css_url: str, email: str, csrf_token: str, problem: str | None = None
) -> str:
    """GET /accounts/api_key/: the key is shown only after the password is entered again."""
    inner = (
        f"<h1>Your API key</h1>{problem_line(problem)}"
        f"<p>The API key of <strong>{escape(email)}</strong> lets apps and bots act as you "
        f"in {escape(realm_name)}. Enter your password to see it.</p>"
        '<form method="post" action="/accounts/api_key/" id="api-key-form">'
        f"{_csrf_field(csrf_token)}"
        '<input type="email" name="username" autocomplete="username" hidden '
        f'value="{escape(email)}">'
        '<label for="password">Password</label>'
        '<input id="password" name="password" type="password" '
        'autocomplete="current-password" required autofocus>'
        '<button type="submit" name="action" value="show">Show API key</button></form>'
        '<p class="aside"><a href="/">Back to the app</a></p>'
    )
    return box_page(f"Your API key · {realm_name}", css_url, inner)


@dataclass(frozen=True)
class ApiKeyView:
    realm_name: str
    email: str
    api_key: str
    zuliprc: str
    csrf_token: str
    regenerated: bool = False


def api_key_shown(view: ApiKeyView, *, css_url: str) -> str:
    """After the password: the key, a zuliprc, and "Generate a new API key"."""
    notice = (
        notice_line("A new API key was generated: the old one no longer works.")
        if view.regenerated
        else ""
    )
    inner = (
        f"<h1>Your API key</h1>{notice}"
        f"<p>Account <strong>{escape(view.email)}</strong></p>"
        f'<p>API key: <code id="api_key">{escape(view.api_key)}</code></p>'
        "<p>Save this as <code>~/.zuliprc</code> to use Zulip clients and bots:</p>"
        f'<pre id="zuliprc">{escape(view.zuliprc)}</pre>'
        "<h2>Generate a new API key</h2>"
        "<p>The current key stops working at once: update every app and bot that uses it.</p>"
        '<form method="post" action="/accounts/api_key/" id="api-key-regenerate">'
        f"{_csrf_field(view.csrf_token)}"
        '<input type="email" name="username" autocomplete="username" hidden '
        f'value="{escape(view.email)}">'
        '<label for="password">Password</label>'
        '<input id="password" name="password" type="password" '
        'autocomplete="current-password" required>'
        '<button type="submit" name="action" value="regenerate" class="secondary">'
        "Generate a new API key</button></form>"
        '<p class="aside"><a href="/">Back to the app</a></p>'
    )
    return box_page(f"Your API key · {view.realm_name}", css_url, inner)


def not_found(*, css_url: str, path: str) -> str:
    """A browser's page for an address we do not serve."""
    inner = (
        "<h1>Page not found</h1>"
        f'<p>There is nothing at <code class="path">{escape(path)}</code>. Check the address, '
        "or start again from the app.</p>"
        '<p class="aside"><a href="/">Open the app</a> · <a href="/login/">Log in</a></p>'
    )
    return box_page("Page not found", css_url, inner)


@dataclass(frozen=True)
class LoggedEmail:
    name: str  # the file name in the email log folder
    to: str
    subject: str
    date: str
    body: str


def _linked(text: str) -> str:
    """Escape `text`, making each URL in it a link (the log is a developer's page)."""
    parts, last = [], 0
    for match in _URL_RE.finditer(text):
        parts.append(escape(text[last : match.start()]))
        url = escape(match.group(0))
        parts.append(f'<a href="{url}">{url}</a>')
        last = match.end()
    parts.append(escape(text[last:]))
    return "".join(parts)


def email_log(*, css_url: str, folder: str, emails: list[LoggedEmail]) -> str:
    """GET /emails/ (development servers only): every email the server sent, newest first."""
    items = "".join(
        f'<article class="logged-email" id="{escape(mail.name)}">'
        f"<h2>{escape(mail.subject)}</h2>"
        f'<p class="meta">To {escape(mail.to)} · {escape(mail.date)} · '
        f"<code>{escape(mail.name)}</code></p>"
        f"<pre>{_linked(mail.body)}</pre></article>"
        for mail in emails
    )
    empty = '<p class="notice">No email sent yet.</p>' if not emails else ""
    body = (
        '<body class="page"><main class="email-log"><h1>Emails sent by this server</h1>'
        f"<p>A development server writes every email to <code>{escape(folder)}</code> "
        "instead of (or as well as) sending it.</p>"
        f"{empty}{items}</main></body>"
    )
    return page("Emails sent", css_url, body)
