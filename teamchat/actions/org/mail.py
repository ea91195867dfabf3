"""Outgoing email: over SMTP when `smtp_host` is configured, and into the email log folder
(each email a .eml file, and a console line) when `email_log_dir` is, as a development server
does. With neither, nothing can be sent, and callers say so instead of pretending.

Sending runs in a small pool of threads of its own (a slow relay must not hold the threads
log-ins and uploads use), after the transaction that recorded what the mail is about.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import ssl
import time
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import TYPE_CHECKING

from teamchat.config import Settings
from teamchat.lib.lazy import lazy_module

if TYPE_CHECKING:
    import smtplib
else:  # the SMTP client: imported by the first email sent over SMTP
    smtplib = lazy_module("smtplib")

log = logging.getLogger(__name__)
SMTP_TIMEOUT_SECS = 30.0
# What people are told when the server cannot send email (the invite dialog, the CLI).
NO_MAIL_TEXT = (
    "This server is not set up to send email (no SMTP server is configured), so no email was sent."
)
_UNSAFE_NAME_RE = re.compile(r"[^A-Za-z0-9@._-]+")
_LINK_RE = re.compile(r"https?://\S+")
_MAIL_THREADS = ThreadPoolExecutor(2, thread_name_prefix="mail")


def mail_configured(settings: Settings) -> bool:
    """Whether an email can go anywhere: an SMTP server, or the development email log."""
    return settings.smtp_host is not None or settings.email_log_dir is not None


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


def _write_log(folder: Path, message: EmailMessage) -> Path:
    """Save `message` as <time>-<recipient>.eml (owner-readable only: it may hold links)."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    recipient = _UNSAFE_NAME_RE.sub("_", str(message["To"]))[:80]
    base = f"{stamp}-{time.time_ns() % 1_000_000_000:09d}-{recipient}"
    path = folder / f"{base}.eml"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(bytes(message))
    return path


def _deliver(settings: Settings, message: EmailMessage) -> None:
    if settings.email_log_dir is not None:
        path = _write_log(settings.email_log_dir, message)
        links = " ".join(_LINK_RE.findall(message.get_content()))
        log.info(
            "email to %s: %s (saved as %s)%s",
            message["To"],
            message["Subject"],
            path,
            f"; links: {links}" if links else "",
        )
    if settings.smtp_host is not None:
        _send(settings, message)


async def send_email(settings: Settings, *, to: str, subject: str, body: str) -> bool:
    """Send a plain-text email; False (and a log line) when it could not go anywhere."""
    if not mail_configured(settings):
        log.warning("no email sent to %s (%s): no SMTP server is configured", to, subject)
        return False
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain=settings.smtp_from.rpartition("@")[2] or None)
    message.set_content(body)
    try:
        await asyncio.get_running_loop().run_in_executor(_MAIL_THREADS, _deliver, settings, message)
    except (OSError, smtplib.SMTPException) as error:
        log.warning("could not send email to %s: %s", to, error)
        return False
    return True
