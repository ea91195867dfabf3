"""Payload encryption for E2EE push notifications (PyNaCl secretbox, cryptosystem 0x31)."""

from __future__ import annotations

import os

import nacl.secret
import pytest

from teamchat.lib import push_crypto


def test_round_trip_and_compatibility_with_a_plain_secretbox() -> None:
    raw_key = os.urandom(32)
    push_key = b"\x31" + raw_key
    payload = {"realm_url": "https://chat.example.com", "message_ids": [1, 2], "content": "hi ✓"}
    sealed = push_crypto.encrypt_payload(push_key, payload)
    assert push_crypto.decrypt_payload(push_key, sealed) == payload
    # What a device does with only the 32-byte key.
    opened = nacl.secret.SecretBox(raw_key).decrypt(sealed)
    assert b'"message_ids":[1,2]' in opened
    # A fresh nonce each time.
    assert push_crypto.encrypt_payload(push_key, payload) != sealed


def test_tampering_and_wrong_keys_are_detected() -> None:
    push_key = b"\x31" + os.urandom(32)
    sealed = bytearray(push_crypto.encrypt_payload(push_key, {"a": 1}))
    sealed[-1] ^= 1
    with pytest.raises(ValueError, match="authentication"):
        push_crypto.decrypt_payload(push_key, bytes(sealed))
    good = push_crypto.encrypt_payload(push_key, {"a": 1})
    with pytest.raises(ValueError):
        push_crypto.decrypt_payload(b"\x31" + os.urandom(32), good)


@pytest.mark.parametrize("bad", [b"\x32" + bytes(32), b"\x31" + bytes(31), b"", bytes(33)])
def test_only_cryptosystem_0x31_keys(bad: bytes) -> None:
    with pytest.raises(push_crypto.BadPushKeyError):
        push_crypto.encrypt_payload(bad, {})


def test_standard_base64_only() -> None:
    assert push_crypto.decode_b64("YWJj") == b"abc"
    for bad in ("YWJ", "YW=j", "a b", "YWJj!"):
        with pytest.raises(ValueError):
            push_crypto.decode_b64(bad)
