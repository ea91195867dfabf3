"""Push registration end to end: client devices, E2EE registration rules, legacy tokens."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterator

import pytest

from tests.conftest import TEST_PASSWORD, database_url, unique_email
from tests.support.api import Api, assert_error, assert_success
from tests.support.server import ServerProcess

KEY = base64.b64encode(b"\x31" + bytes(range(32))).decode()
OTHER_KEY = base64.b64encode(b"\x31" + bytes(32)).decode()


def token_fields(token: str = "fcm-token-1") -> dict[str, object]:
    token_id = base64.b64encode(hashlib.sha256(token.encode()).digest()[:8]).decode()
    return {
        "token_kind": "fcm",
        "token_id": token_id,
        "bouncer_public_key": base64.b64encode(b"bouncer-key").decode(),
        "encrypted_push_registration": base64.b64encode(b"ciphertext").decode(),
    }


def key_fields(key: str = KEY, key_id: int = 7) -> dict[str, object]:
    return {"push_key_id": key_id, "push_key": key}


def test_without_a_push_service_registration_is_refused(make_user: Callable[..., Api]) -> None:
    user = make_user()
    device_id = user.ok("POST", "/register_client_device")["device_id"]
    assert isinstance(device_id, int)
    for response in (
        user.post("/mobile_push/register", device_id=device_id, **key_fields(), **token_fields()),
        user.post("/users/me/android_gcm_reg_id", token="abc"),
        user.delete("/users/me/android_gcm_reg_id", token="abc"),
        user.post("/users/me/apns_device_token", token="abcd", appid="org.zulip.Zulip"),
        user.delete("/users/me/apns_device_token", token="abcd"),
    ):
        assert_error(
            response,
            "Server is not configured to use push notification service.",
            "PUSH_SERVICE_NOT_CONFIGURED",
        )
    assert_error(
        user.post("/mobile_push/register"),
        "Missing 'device_id' argument",
        "REQUEST_VARIABLE_MISSING",
    )


@pytest.fixture(scope="module")
def push_server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    proc = ServerProcess(
        tmp_path_factory.mktemp("push"),
        {"TEAMCHAT_PUSH_SERVICE_URL": "https://push.example.com"},
        database_url=database_url(request),
    ).start()
    yield proc
    proc.stop()


@pytest.fixture
def pusher(push_server: ServerProcess) -> Iterator[Api]:
    email = unique_email("push")
    with Api(push_server.url, push_server.owner_email, push_server.owner_key) as owner:
        owner.ok("POST", "/users", email=email, password=TEST_PASSWORD, full_name="Pusher")
    with Api(push_server.url) as anonymous:
        key = assert_success(
            anonymous.post("/fetch_api_key", username=email, password=TEST_PASSWORD)
        )
    with Api(push_server.url, email, key["api_key"]) as api:
        yield api


def test_initial_registration_then_key_and_token_rotation(
    pusher: Api, push_server: ServerProcess
) -> None:
    settings = assert_success(pusher.get("/server_settings"))
    assert settings["push_notifications_enabled"] is True
    device = pusher.ok("POST", "/register_client_device")["device_id"]
    assert_error(
        pusher.post("/mobile_push/register", device_id=device, **key_fields()),
        "A new push registration needs both the push key fields and the token fields.",
    )
    assert_error(
        pusher.post("/mobile_push/register", device_id=device, **token_fields()),
        "A new push registration needs both the push key fields and the token fields.",
    )
    body = pusher.ok(
        "POST", "/mobile_push/register", device_id=device, **key_fields(), **token_fields(), bogus=1
    )
    assert body["ignored_parameters_unsupported"] == ["bogus"]
    pusher.ok("POST", "/mobile_push/register", device_id=device, **key_fields(OTHER_KEY, 8))
    pusher.ok("POST", "/mobile_push/register", device_id=device, **token_fields("fcm-token-2"))


def test_registration_replaces_matching_legacy_tokens(pusher: Api) -> None:
    pusher.ok("POST", "/users/me/android_gcm_reg_id", token="legacy-token")
    pusher.ok("POST", "/users/me/android_gcm_reg_id", token="other-legacy-token")
    apns = "ab" * 32
    pusher.ok("POST", "/users/me/apns_device_token", token=apns, appid="org.zulip.Zulip")
    device = pusher.ok("POST", "/register_client_device")["device_id"]
    pusher.ok(
        "POST",
        "/mobile_push/register",
        device_id=device,
        **key_fields(),
        **token_fields("legacy-token"),
    )
    assert_error(
        pusher.delete("/users/me/android_gcm_reg_id", token="legacy-token"), "Token does not exist"
    )
    pusher.ok("DELETE", "/users/me/android_gcm_reg_id", token="other-legacy-token")
    apns_token_id = base64.b64encode(hashlib.sha256(bytes.fromhex(apns)).digest()[:8]).decode()
    fields = {**token_fields(), "token_kind": "apns", "token_id": apns_token_id}
    pusher.ok("POST", "/mobile_push/register", device_id=device, **fields)
    assert_error(pusher.delete("/users/me/apns_device_token", token=apns), "Token does not exist")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"push_key_id": 1}, "push_key_id and push_key must be sent together."),
        (
            {"token_kind": "fcm"},
            "token_kind, token_id, bouncer_public_key and encrypted_push_registration "
            "must be sent together.",
        ),
        ({}, "Send the push key fields, the token fields, or both."),
        (key_fields("not base64!"), "Invalid `push_key`"),
        (key_fields(base64.b64encode(b"\x32" + bytes(32)).decode()), "Invalid `push_key`"),
        (key_fields(base64.b64encode(b"\x31" + bytes(31)).decode()), "Invalid `push_key`"),
        (key_fields(KEY[:-2]), "Invalid `push_key`"),
        (key_fields(key_id=2**32), "Invalid `push_key_id`"),
        (key_fields(key_id=-1), "Invalid `push_key_id`"),
        ({**token_fields(), "token_kind": "gcm"}, "Invalid token_kind"),
        ({**token_fields(), "token_id": base64.b64encode(bytes(9)).decode()}, "Invalid `token_id`"),
        ({**token_fields(), "bouncer_public_key": "%%%"}, "Invalid `bouncer_public_key`"),
        (
            {**token_fields(), "encrypted_push_registration": "abc"},
            "Invalid `encrypted_push_registration`",
        ),
    ],
)
def test_bad_registrations(pusher: Api, params: dict[str, object], message: str) -> None:
    device = pusher.ok("POST", "/register_client_device")["device_id"]
    assert_error(pusher.post("/mobile_push/register", device_id=device, **params), message)


def test_devices_belong_to_their_user(pusher: Api, push_server: ServerProcess) -> None:
    with Api(push_server.url, push_server.owner_email, push_server.owner_key) as owner:
        theirs = owner.ok("POST", "/register_client_device")["device_id"]
    assert_error(
        pusher.post("/mobile_push/register", device_id=theirs, **key_fields(), **token_fields()),
        "Invalid device ID",
    )


def test_legacy_token_validation(pusher: Api) -> None:
    assert_error(
        pusher.post("/users/me/android_gcm_reg_id", token=""), "Empty or invalid length token"
    )
    assert_error(
        pusher.post("/users/me/android_gcm_reg_id", token="x" * 4097),
        "Empty or invalid length token",
    )
    assert_error(
        pusher.post("/users/me/apns_device_token", token="zz", appid="a"), "Invalid APNS token"
    )
    assert_error(
        pusher.post("/users/me/apns_device_token", token="abcd"),
        "Missing 'appid' argument",
        "REQUEST_VARIABLE_MISSING",
    )
