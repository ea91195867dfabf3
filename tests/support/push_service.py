"""A stand-in mobile push service on loopback (tests only): it speaks the bouncer protocol
teamchat uses (`/api/v1/remotes/push/e2ee/notify`, `/api/v1/remotes/push/test_notification`),
opens each device's push registration with its own private key (a NaCl sealed box, as the
app encrypts it for the bouncer), and plays the phone: it decrypts every payload with the key
the device registered, keeping what the app would see.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import nacl.public
import nacl.secret

E2EE_NOTIFY = "/api/v1/remotes/push/e2ee/notify"
LEGACY_TEST = "/api/v1/remotes/push/test_notification"


class Phone:
    """One app install: its FCM/APNs token and the push key it registered."""

    def __init__(self, token: str, kind: str = "fcm", key_id: int = 7) -> None:
        self.token, self.kind, self.key_id = token, kind, key_id
        self.key = bytes(range(1, 33)) if kind == "fcm" else bytes(range(33, 65))

    @property
    def push_key(self) -> str:
        """The `push_key` parameter: cryptosystem 0x31 (secretbox) then the key."""
        return base64.b64encode(b"\x31" + self.key).decode()


class _Handler(BaseHTTPRequestHandler):
    server: PushServiceStub

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        status, answer = self.server.handle(self.path, self.headers, body)
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class PushServiceStub(ThreadingHTTPServer):
    """Records every request; `delivered` holds (token, push_key_id, plaintext payload)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self._private = nacl.public.PrivateKey.generate()
        self.phones: dict[str, Phone] = {}
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.authorizations: list[str | None] = []  # each request's Authorization header
        self.delivered: list[tuple[str, int, dict[str, Any]]] = []
        self.delivered_at: list[float] = []  # time.perf_counter() of each decryption
        self.fail_next: list[int] = []  # statuses to answer before working again
        self.gone_tokens: set[str] = set()  # tokens FCM/APNs no longer accept
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    @property
    def public_key(self) -> str:
        return base64.b64encode(bytes(self._private.public_key)).decode()

    def registration(self, phone: Phone) -> dict[str, object]:
        """The key and token fields of POST /mobile_push/register, as the app builds them."""
        self.phones[phone.token] = phone
        token_id = hashlib.sha256(phone.token.encode()).digest()[:8]
        plain = json.dumps(
            {"token": phone.token, "token_kind": phone.kind, "timestamp": int(time.time())}
        ).encode()
        sealed = nacl.public.SealedBox(self._private.public_key).encrypt(plain)
        return {
            "push_key_id": phone.key_id,
            "push_key": phone.push_key,
            "token_kind": phone.kind,
            "token_id": base64.b64encode(token_id).decode(),
            "bouncer_public_key": self.public_key,
            "encrypted_push_registration": base64.b64encode(sealed).decode(),
        }

    def handle(self, path: str, headers: Any, body: bytes) -> tuple[int, dict[str, Any]]:
        with self.lock:
            data = json.loads(body)
            self.requests.append((path, data))
            self.authorizations.append(headers.get("Authorization"))
            if self.fail_next:
                return self.fail_next.pop(0), {"result": "error", "msg": "down"}
            if path == E2EE_NOTIFY:
                return 200, self._notify(data)
            if path == LEGACY_TEST:
                return self._legacy_test(data)
            return 404, {"result": "error", "msg": "Not found", "code": "BAD_REQUEST"}

    def _notify(self, data: dict[str, Any]) -> dict[str, Any]:
        sent = {"fcm": 0, "apns": 0}
        gone = []
        for request in data["push_requests"]:
            sealed = base64.b64decode(request["encrypted_push_registration"])
            registration = json.loads(nacl.public.SealedBox(self._private).decrypt(sealed))
            token = registration["token"]
            if token in self.gone_tokens:
                gone.append(request["device_id"])
                continue
            phone = self.phones[token]
            payload = request["payload"]
            box = nacl.secret.SecretBox(phone.key)
            plain = box.decrypt(base64.b64decode(payload["encrypted_data"]))
            self.delivered.append((token, payload["push_key_id"], json.loads(plain)))
            self.delivered_at.append(time.perf_counter())
            sent[registration["token_kind"]] += 1
        return {
            "result": "success",
            "msg": "",
            "android_successfully_sent_count": sent["fcm"],
            "apple_successfully_sent_count": sent["apns"],
            "delete_device_ids": gone,
        }

    def _legacy_test(self, data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if data["token"] in self.gone_tokens:
            return 400, {
                "result": "error",
                "msg": "Device not recognized by the push bouncer",
                "code": "INVALID_REMOTE_PUSH_DEVICE_TOKEN",
            }
        self.delivered.append((data["token"], 0, {"type": "test", **data["base_payload"]}))
        return 200, {"result": "success", "msg": ""}

    def payloads(self, count: int, timeout: float = 10.0) -> list[tuple[str, int, dict[str, Any]]]:
        """Wait until `count` payloads were delivered; return them all."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.delivered) >= count:
                    return list(self.delivered)
            time.sleep(0.05)
        with self.lock:
            return list(self.delivered)

    def __enter__(self) -> PushServiceStub:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
