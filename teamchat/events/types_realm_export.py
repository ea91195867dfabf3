"""Events about organization exports: `realm_export` (the list of exports, to
administrators) and `realm_export_consent` (a user's consent to private data exports)."""

from __future__ import annotations

import msgspec

from teamchat.events.types import Event, register_event_types


class RealmExportObject(msgspec.Struct, kw_only=True):
    id: int
    acting_user_id: int
    export_time: float
    deleted_timestamp: float | None
    failed_timestamp: float | None
    export_url: str | None
    pending: bool
    export_type: int


class RealmExportEvent(Event, tag="realm_export", kw_only=True):
    exports: list[RealmExportObject]


class RealmExportConsentEvent(Event, tag="realm_export_consent", kw_only=True):
    user_id: int
    consented: bool


register_event_types(RealmExportEvent, RealmExportConsentEvent)
