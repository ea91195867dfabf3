"""The small HTML pages of joining through an invitation link and of confirming a new email
address. Pure: text in, HTML out."""

from __future__ import annotations

from html import escape

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;"
    "color:#222}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.4rem;"
    "box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1.2rem}"
    ".problem{color:#a00}pre{background:#f4f4f4;padding:.8rem;overflow-x:auto}"
)


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body>{body}</body></html>"
    )


def signup_form(
    *,
    realm_name: str,
    action: str,
    email: str,
    email_fixed: bool,
    full_name: str = "",
    problem: str | None = None,
) -> str:
    """The form a new member fills in; `email_fixed` for email invitations."""
    problem_html = f'<p class="problem" role="alert">{escape(problem)}</p>' if problem else ""
    readonly = " readonly" if email_fixed else ""
    body = (
        f"<h1>Join {escape(realm_name)}</h1>{problem_html}"
        f'<form method="post" action="{escape(action)}">'
        '<label for="email">Email</label>'
        f'<input id="email" name="email" type="email" required value="{escape(email)}"{readonly}>'
        '<label for="full_name">Full name</label>'
        f'<input id="full_name" name="full_name" required value="{escape(full_name)}">'
        '<label for="password">Password</label>'
        '<input id="password" name="password" type="password" required minlength="6">'
        '<button type="submit">Create account</button></form>'
    )
    return _page(f"Join {realm_name}", body)


def email_changed(*, realm_name: str, old_email: str, new_email: str) -> str:
    """After opening an email-change confirmation link."""
    body = (
        f"<h1>{escape(realm_name)}</h1><p>The email address of your account is now "
        f"<strong>{escape(new_email)}</strong> (it was {escape(old_email)}).</p>"
    )
    return _page("Email address changed", body)


def link_problem(*, realm_name: str, problem: str) -> str:
    """The page for a link that cannot be used (unknown, revoked, used, expired)."""
    body = f'<h1>{escape(realm_name)}</h1><p class="problem">{escape(problem)}</p>'
    return _page("Invitation link problem", body)


def welcome(*, realm_name: str, email: str, api_key: str, zuliprc: str) -> str:
    """After sign-up: the account's API key and a ready-to-use zuliprc."""
    body = (
        f"<h1>Welcome to {escape(realm_name)}!</h1>"
        f"<p>Your account <strong>{escape(email)}</strong> is ready.</p>"
        f'<p>API key: <code id="api_key">{escape(api_key)}</code></p>'
        "<p>Save this as <code>~/.zuliprc</code> to use Zulip clients and bots:</p>"
        f'<pre id="zuliprc">{escape(zuliprc)}</pre>'
    )
    return _page(f"Welcome to {realm_name}", body)
