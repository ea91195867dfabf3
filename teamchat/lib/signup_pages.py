"""The small HTML pages of joining through an invitation link and of confirming a new email
address, in the log-in page's style. Pure: text in, HTML out."""

from __future__ import annotations

from html import escape

from teamchat.lib.passwords import MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS
from teamchat.lib.web_pages import box_page, problem_line

# The module that shows zxcvbn's verdict while a new password is typed (static/pages/).
STRENGTH_SCRIPT = "pages/password_strength.js"


def new_password_fields(*, label: str = "Password", name: str = "password") -> str:
    """A new-password input with the live strength meter the strength script fills in."""
    return (
        f'<label for="{name}">{escape(label)}</label>'
        f'<input id="{name}" name="{name}" type="password" autocomplete="new-password" required '
        f'minlength="{MIN_PASSWORD_CHARS}" maxlength="{MAX_PASSWORD_CHARS}" '
        f'data-strength="{name}-strength" aria-describedby="{name}-strength">'
        f'<div id="{name}-strength" class="strength" aria-live="polite" hidden>'
        '<meter class="strength-meter" min="0" max="5" low="3" high="4" optimum="5" value="0">'
        "</meter>"
        '<p class="strength-verdict"></p><ul class="strength-advice"></ul></div>'
        f'<p class="hint">At least {MIN_PASSWORD_CHARS} characters; '
        "longer and less common is stronger.</p>"
    )


def signup_form(
    *,
    realm_name: str,
    css_url: str,
    script_url: str,
    action: str,
    email: str,
    email_fixed: bool,
    full_name: str = "",
    problem: str | None = None,
) -> str:
    """The form a new member fills in; `email_fixed` for email invitations."""
    readonly = " readonly" if email_fixed else ""
    inner = (
        f"<h1>Join {escape(realm_name)}</h1>{problem_line(problem)}"
        f'<form method="post" action="{escape(action)}" id="signup-form">'
        '<label for="email">Email</label>'
        f'<input id="email" name="email" type="email" autocomplete="email" required '
        f'value="{escape(email)}"{readonly}>'
        '<label for="full_name">Full name</label>'
        f'<input id="full_name" name="full_name" autocomplete="name" required '
        f'value="{escape(full_name)}">'
        f"{new_password_fields()}"
        '<button type="submit">Create account</button></form>'
    )
    return box_page(f"Join {realm_name}", css_url, inner, scripts=(script_url,))


def email_changed(*, realm_name: str, css_url: str, old_email: str, new_email: str) -> str:
    """After opening an email-change confirmation link."""
    inner = (
        f"<h1>{escape(realm_name)}</h1><p>The email address of your account is now "
        f"<strong>{escape(new_email)}</strong> (it was {escape(old_email)}).</p>"
        '<p class="aside"><a href="/">Open the app</a></p>'
    )
    return box_page("Email address changed", css_url, inner)


def link_problem(*, realm_name: str, css_url: str, problem: str) -> str:
    """The page for a link that cannot be used (unknown, revoked, used, expired)."""
    inner = f'<h1>{escape(realm_name)}</h1><p class="problem">{escape(problem)}</p>'
    return box_page("Link problem", css_url, inner)
