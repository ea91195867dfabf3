"""A real SMTP server for tests (aiosmtpd, in a thread of the test process) that keeps every
message it receives, so tests read back what the server under test mailed."""

from __future__ import annotations

import time
from email import message_from_bytes
from email.message import Message
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from tests.support.server import free_port


class _Keeper:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content: Any = envelope.original_content or envelope.content
        self.messages.append(message_from_bytes(bytes(content)))
        return "250 Message accepted for delivery"


class SmtpRecorder:
    """`with SmtpRecorder() as smtp:` serves on 127.0.0.1:`smtp.port`; `smtp.messages`."""

    def __init__(self) -> None:
        self._keeper = _Keeper()
        self.port = free_port()
        self._controller = Controller(self._keeper, hostname="127.0.0.1", port=self.port)

    @property
    def messages(self) -> list[Message]:
        return self._keeper.messages

    def env(self) -> dict[str, str]:
        """The server settings that send mail here."""
        return {"TEAMCHAT_SMTP_HOST": "127.0.0.1", "TEAMCHAT_SMTP_PORT": str(self.port)}

    def wait_for(self, count: int, timeout_secs: float = 15.0) -> list[Message]:
        """The first `count` messages, waiting for them to arrive (mail is sent after the
        answer); fails if they do not."""
        deadline = time.monotonic() + timeout_secs
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.messages) >= count, f"{len(self.messages)} of {count} emails arrived"
        return list(self.messages[:count])

    def __enter__(self) -> SmtpRecorder:
        self._controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._controller.stop()
