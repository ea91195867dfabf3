"""End-to-end encryption of push notification payloads (cryptosystem 0x31: NaCl secretbox).

A registered `push_key` is one cryptosystem byte followed by a 32-byte key; the device
decrypts with the same key. Pure functions, for the notification delivery worker.
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING

import msgspec

from teamchat.lib.lazy import lazy_module

if TYPE_CHECKING:
    from nacl import exceptions as nacl_exceptions
    from nacl import secret as nacl_secret
else:  # libsodium's bindings: imported by the first encrypted notification
    nacl_exceptions = lazy_module("nacl.exceptions")
    nacl_secret = lazy_module("nacl.secret")

SECRETBOX = 0x31
SECRETBOX_KEY_BYTES = 32  # nacl.secret.SecretBox.KEY_SIZE (XSalsa20-Poly1305's key)
PUSH_KEY_BYTES = 1 + SECRETBOX_KEY_BYTES
MAX_PUSH_KEY_ID = 2**32 - 1
TOKEN_ID_BYTES = 8


class BadPushKeyError(ValueError):
    """Not a cryptosystem-0x31 push key."""


def decode_b64(text: str) -> bytes:
    """Standard Base64 (RFC 4648, with padding); ValueError if it is not."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("not standard Base64") from None


def check_push_key(push_key: bytes) -> bytes:
    """The 32-byte secretbox key inside a registered push key."""
    if len(push_key) != PUSH_KEY_BYTES or push_key[0] != SECRETBOX:
        raise BadPushKeyError("push_key must be 0x31 followed by a 32-byte key")
    return push_key[1:]


def encrypt_payload(push_key: bytes, payload: dict[str, object]) -> bytes:
    """Encrypt a notification payload (JSON) for the device holding `push_key`.

    Returns nonce + ciphertext, as PyNaCl's SecretBox produces them.
    """
    box = nacl_secret.SecretBox(check_push_key(push_key))
    return bytes(box.encrypt(msgspec.json.encode(payload)))


def decrypt_payload(push_key: bytes, message: bytes) -> dict[str, object]:
    """What the device does: decrypt and decode a payload (raises on tampering)."""
    box = nacl_secret.SecretBox(check_push_key(push_key))
    try:
        plain = box.decrypt(message)
    except nacl_exceptions.CryptoError:
        raise ValueError("payload failed authentication") from None
    result: dict[str, object] = msgspec.json.decode(plain)
    return result
