"""Local HTTP listeners for the outbound-request tests: one that records every hit and
redirects on request, and one that trickles its answer a byte at a time."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

PAGE = (
    b'<html><head><title>Internal page</title><meta property="og:image" content="/logo.png">'
    b"</head><body>secret</body></html>"
)


class Listener(ThreadingHTTPServer):
    """Records the path of every request. `/redirect?to=URL` answers 302 to URL, any other
    POST answers `{"content": "reached"}`, any other GET an HTML page."""

    daemon_threads = True

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.hits: list[str] = []
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                listener.hits.append(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                parts = urllib.parse.urlsplit(self.path)
                if parts.path == "/redirect":
                    self.send_response(302)
                    self.send_header("Location", urllib.parse.parse_qs(parts.query)["to"][0])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                post = self.command == "POST"
                body = b'{"content": "reached"}' if post else PAGE
                self.send_response(200)
                self.send_header("Content-Type", "application/json" if post else "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

            def log_message(self, *args: object) -> None:
                pass

        super().__init__((host, 0), Handler)
        self.host = host
        self.port = int(self.server_address[1])
        self.url = f"http://{host}:{self.port}"

    def __enter__(self) -> Listener:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


class Trickle:
    """Accepts connections, reads the request, then sends a 200 header and one byte of a
    long body every `interval_secs` for up to `total_secs`. Records how long each
    connection stayed open and how many were open at once."""

    def __init__(self, interval_secs: float = 1.0, total_secs: float = 60.0) -> None:
        self.interval_secs, self.total_secs = interval_secs, total_secs
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.lock = threading.Lock()
        self.open_now = 0
        self.most_open = 0
        self.durations: list[float] = []
        self.stopping = False
        # bot_email of the webhook payload -> connections open now, and the most at once.
        self.open_by_bot: dict[str, int] = {}
        self.most_by_bot: dict[str, int] = {}

    def __enter__(self) -> Trickle:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stopping = True
        self.sock.close()

    def _accept(self) -> None:
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    @staticmethod
    def _bot_email(conn: socket.socket) -> str:
        """Read the whole request; the bot_email of its JSON body ("" if none)."""
        data = b""
        while b"\r\n\r\n" not in data and (chunk := conn.recv(65536)):
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(body) < length and (chunk := conn.recv(65536)):
            body += chunk
        try:
            return str(json.loads(body).get("bot_email", ""))
        except ValueError:
            return ""

    def _serve(self, conn: socket.socket) -> None:
        started = time.monotonic()
        with self.lock:
            self.open_now += 1
            self.most_open = max(self.most_open, self.open_now)
        bot: str | None = None
        try:
            email = self._bot_email(conn)
            with self.lock:
                bot = email
                self.open_by_bot[bot] = self.open_by_bot.get(bot, 0) + 1
                self.most_by_bot[bot] = max(self.most_by_bot.get(bot, 0), self.open_by_bot[bot])
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100000\r\n\r\n"
            )
            conn.settimeout(self.interval_secs)
            while time.monotonic() - started < self.total_secs and not self.stopping:
                conn.sendall(b" ")
                try:
                    if conn.recv(1) == b"":
                        break  # the server hung up
                except TimeoutError:
                    continue
        except OSError:
            pass  # the server hung up: what the deadline should make it do
        finally:
            conn.close()
            with self.lock:
                self.open_now -= 1
                if bot is not None:
                    self.open_by_bot[bot] -= 1
                self.durations.append(time.monotonic() - started)

    def wait_open(self, count: int, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while self.open_now < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.open_now >= count, (self.open_now, count)


class Site(ThreadingHTTPServer):
    """A small web site on loopback: `pages` maps a path to (content type, body); a path in
    `redirects` answers 302 to another path; anything else 404. Records every path asked."""

    daemon_threads = True

    def __init__(
        self, pages: dict[str, tuple[str, bytes]], redirects: dict[str, str] | None = None
    ) -> None:
        self.hits: list[str] = []
        site, moves = self, redirects or {}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.hits.append(self.path)
                if self.path in moves:
                    self.send_response(302)
                    self.send_header("Location", moves[self.path])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                kind, body = pages.get(self.path, ("text/plain", b""))
                self.send_response(200 if self.path in pages else 404)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> Site:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
