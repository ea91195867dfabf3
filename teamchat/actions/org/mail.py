"""Outgoing email over SMTP (invitations). Nothing is sent unless `smtp_host` is configured.

Sending runs in a small pool of threads of its own (a slow relay must not hold the threads
log-ins and uploads use), after the transaction that recorded what the mail is about.
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
import ssl
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage

from teamchat.config import Settings

log = logging.getLogger(__name__)
SMTP_TIMEOUT_SECS = 30.0
_MAIL_THREADS = ThreadPoolExecutor(2, thread_name_prefix="mail")


def mail_configured(settings: Settings) -> bool:
    return settings.smtp_host is not None


def _send(settings: Settings, message: EmailMessage) -> None:
    assert settings.smtp_host is not None
    if settings.smtp_security == "ssl":
        context = ssl.create_default_context()
        server: smtplib.SMTP = smtplib.SMTP_SSL(
            settings.smtp_host, settings.smtp_port, timeout=SMTP_TIMEOUT_SECS, context=context
        )
    else:
        server = smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=SMTP_TIMEOUT_SECS)
    with server:
        if settings.smtp_security == "starttls":
            server.starttls(context=ssl.create_default_context())
        if settings.smtp_username:
            server.login(settings.smtp_username, settings.smtp_password or "")
        server.send_message(message)


async def send_email(settings: Settings, *, to: str, subject: str, body: str) -> bool:
    """Send a plain-text email; False (and a log line) when not configured or on failure."""
    if not mail_configured(settings):
        return False
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    try:
        await asyncio.get_running_loop().run_in_executor(_MAIL_THREADS, _send, settings, message)
    except (OSError, smtplib.SMTPException) as error:
        log.warning("could not send email to %s: %s", to, error)
        return False
    return True
