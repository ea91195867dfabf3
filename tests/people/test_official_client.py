"""The official `zulip` Python client's people calls work against the server unchanged."""

from __future__ import annotations

import zulip

from tests.conftest import unique_email
from tests.support.server import ServerProcess


def test_python_client_people_calls(server: ServerProcess) -> None:
    client = zulip.Client(email=server.owner_email, api_key=server.owner_key, site=server.url)
    email = unique_email("pyclient")
    created = client.create_user({"email": email, "password": "pw-123456", "full_name": "Py User"})
    assert created["result"] == "success", created
    user_id = created["user_id"]
    assert (
        client.update_user_by_id(user_id, full_name="Py Renamed", role=300)["result"] == "success"
    )
    assert client.get_user_by_id(user_id)["user"]["role"] == 300
    assert client.deactivate_user_by_id(user_id)["result"] == "success"
    assert client.reactivate_user_by_id(user_id)["result"] == "success"
    assert client.add_alert_words(["py-word"])["alert_words"][-1] == "py-word"
    assert client.remove_alert_words(["py-word"])["result"] == "success"
    presence = client.update_presence({"status": "active", "ping_only": False})
    assert server.owner_email in presence["presences"]
    assert client.get_user_presence(server.owner_email)["result"] == "success"
    assert server.owner_email in client.get_realm_presence()["presences"]
    field = client.create_realm_profile_field(name="Py phone", hint="Number", field_type=1)
    assert field["result"] == "success", field
    fields = client.get_realm_profile_fields()["custom_fields"]
    assert field["id"] in [f["id"] for f in fields]
    assert (
        client.update_realm_profile_field(field_id=field["id"], hint="Mobile")["result"]
        == "success"
    )
    order = [f["id"] for f in reversed(fields)]
    assert client.reorder_realm_profile_fields(order=order)["result"] == "success"
    assert client.remove_realm_profile_field(field_id=field["id"])["result"] == "success"
    settings = client.update_notification_settings({"enable_offline_push_notifications": False})
    assert settings["result"] == "success"
    status = client.call_endpoint(
        url="users/me/status", method="POST", request={"status_text": "py"}
    )
    assert status["result"] == "success"
