"""A tiny in-process SMTP server that records the messages it receives (tests only)."""

from __future__ import annotations

import socketserver
import threading
from email import message_from_bytes
from email.message import Message


class _Handler(socketserver.StreamRequestHandler):
    server: SmtpRecorder

    def _reply(self, line: str) -> None:
        self.wfile.write(line.encode() + b"\r\n")

    def handle(self) -> None:
        self._reply("220 test SMTP ready")
        while line := self.rfile.readline():
            command = line.decode(errors="replace").strip()
            verb = command.split(" ", 1)[0].upper()
            if verb in ("EHLO", "HELO"):
                self._reply("250 test")
            elif verb == "DATA":
                self._reply("354 go ahead")
                self.server.messages.append(self._read_data())
                self._reply("250 queued")
            elif verb == "QUIT":
                self._reply("221 bye")
                return
            else:
                self._reply("250 ok")

    def _read_data(self) -> Message:
        lines = []
        while (line := self.rfile.readline()) not in (b".\r\n", b".\n", b""):
            lines.append(line[1:] if line.startswith(b"..") else line)
        return message_from_bytes(b"".join(lines))


class SmtpRecorder(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.messages: list[Message] = []
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def __enter__(self) -> SmtpRecorder:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
