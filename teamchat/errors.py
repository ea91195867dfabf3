"""Zulip's error tree: one class per error `code`, with Zulip's message text and extra fields.

A leaf module: it imports nothing from teamchat. Raise these anywhere below the HTTP layer;
`app.error_response` turns them into `{"result": "error", "msg", "code", **data}`.

    ZulipError (400 BAD_REQUEST)
     ├── RequestVariableMissingError   REQUEST_VARIABLE_MISSING, var_name
     ├── RequestVariableConversionError REQUEST_VARIABLE_INVALID, var_name, bad_value
     ├── BadEventQueueIdError          BAD_EVENT_QUEUE_ID, queue_id
     ├── StreamDoesNotExistError       STREAM_DOES_NOT_EXIST, stream
     ├── UnauthorizedPrincipalError    UNAUTHORIZED_PRINCIPAL
     │    ├── OrganizationAdministratorRequiredError
     │    └── OrganizationOwnerRequiredError
     ├── ReactionDoesNotExistError     REACTION_DOES_NOT_EXIST
     ├── SystemGroupRequiredError      (a setting that only takes system groups)
     ├── PreviousSettingValueMismatchedError EXPECTATION_MISMATCH
     ├── CannotDeactivateGroupInUseError CANNOT_DEACTIVATE_GROUP_IN_USE, objections
     ├── PushServiceNotConfiguredError PUSH_SERVICE_NOT_CONFIGURED
     ├── InvalidPushDeviceTokenError   INVALID_PUSH_DEVICE_TOKEN
     ├── InvalidRemotePushDeviceTokenError INVALID_REMOTE_PUSH_DEVICE_TOKEN
     ├── NoActivePushDeviceError       NO_ACTIVE_PUSH_DEVICE
     ├── PushServiceError              502 (the push service failed us)
     │    ├── FailedToConnectBouncerError 502 FAILED_TO_CONNECT_BOUNCER
     │    └── InternalBouncerServerError  502 INTERNAL_SERVER_ERROR_ON_BOUNCER
     ├── PushAdminActionRequiredError  403 ADMIN_ACTION_REQUIRED
     ├── BadImageError                 BAD_IMAGE (uploaded image of the wrong kind)
     ├── CannotDeactivateLastUserError CANNOT_DEACTIVATE_LAST_USER, is_last_owner, entity
     ├── ResourceNotFoundError         404 BAD_REQUEST (unknown route, Zulip's JSON 404)
     ├── MethodNotAllowedError         405, allowed_methods (+ Allow), no code
     ├── UnauthorizedError             401 UNAUTHORIZED (+ WWW-Authenticate)
     │    ├── InvalidAPIKeyError       401 UNAUTHORIZED "Invalid API key"
     │    ├── UserDeactivatedError     401 USER_DEACTIVATED
     │    │    └── SessionUserDeactivatedError (a session's: "Session" challenge)
     │    ├── AuthenticationFailedError 401 AUTHENTICATION_FAILED
     │    └── SessionRequiredError     401 UNAUTHORIZED (/json without a session)
     ├── ForbiddenError                403 BAD_REQUEST
     ├── CsrfFailedError               403 CSRF_FAILED, reason
     ├── RateLimitedError              429 RATE_LIMIT_HIT, retry-after (+ Retry-After)
     ├── ServerNotReadyError           500 SERVER_NOT_READY (GET /health)
     └── DiskFullError                 503 DISK_FULL (+ Retry-After): retry later
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar


class ZulipError(Exception):
    """Reported as {"result": "error", "msg": msg, "code": code, **data} with status http_status."""

    code: ClassVar[str] = "BAD_REQUEST"
    http_status: ClassVar[int] = 400
    default_headers: ClassVar[Mapping[str, str]] = {}

    def __init__(self, msg: str, **data: object) -> None:
        super().__init__(msg)
        self.msg = msg
        self.data = data

    @property
    def headers(self) -> Mapping[str, str]:
        return self.default_headers

    def envelope(self) -> dict[str, object]:
        return {"result": "error", "msg": self.msg, "code": self.code, **self.data}


class RequestVariableMissingError(ZulipError):
    code = "REQUEST_VARIABLE_MISSING"

    def __init__(self, var_name: str) -> None:
        super().__init__(f"Missing '{var_name}' argument", var_name=var_name)


class BadEventQueueIdError(ZulipError):
    code = "BAD_EVENT_QUEUE_ID"

    def __init__(self, queue_id: str) -> None:
        super().__init__(f"Bad event queue ID: {queue_id}", queue_id=queue_id)


class StreamDoesNotExistError(ZulipError):
    code = "STREAM_DOES_NOT_EXIST"

    def __init__(self, stream: str) -> None:
        super().__init__(f"Channel '{stream}' does not exist", stream=stream)


class StreamIdDoesNotExistError(ZulipError):
    code = "STREAM_DOES_NOT_EXIST"

    def __init__(self, stream_id: int) -> None:
        super().__init__(f"Channel with ID '{stream_id}' does not exist", stream_id=stream_id)


class RealmDeactivatedError(ZulipError):
    code = "REALM_DEACTIVATED"
    http_status = 401

    def __init__(self) -> None:
        super().__init__("This organization is deactivated")


class ChannelExistsError(ZulipError):
    code = "CHANNEL_ALREADY_EXISTS"
    http_status = 409

    def __init__(self, channel_name: str) -> None:
        super().__init__(f"Channel '{channel_name}' already exists", channel_name=channel_name)


class RequestVariableConversionError(ZulipError):
    code = "REQUEST_VARIABLE_INVALID"

    def __init__(self, var_name: str, bad_value: object) -> None:
        super().__init__(
            f"Bad value for '{var_name}': {bad_value}", var_name=var_name, bad_value=bad_value
        )


class UnauthorizedPrincipalError(ZulipError):
    code = "UNAUTHORIZED_PRINCIPAL"


class OrganizationAdministratorRequiredError(UnauthorizedPrincipalError):
    def __init__(self) -> None:
        super().__init__("Must be an organization administrator")


class OrganizationOwnerRequiredError(UnauthorizedPrincipalError):
    def __init__(self) -> None:
        super().__init__("Must be an organization owner")


class ReactionDoesNotExistError(ZulipError):
    code = "REACTION_DOES_NOT_EXIST"

    def __init__(self) -> None:
        super().__init__("Reaction doesn't exist.")


class PushServiceNotConfiguredError(ZulipError):
    code = "PUSH_SERVICE_NOT_CONFIGURED"

    def __init__(self) -> None:
        super().__init__("Server is not configured to use push notification service.")


class InvalidPushDeviceTokenError(ZulipError):
    code = "INVALID_PUSH_DEVICE_TOKEN"

    def __init__(self) -> None:
        super().__init__("Device not recognized")


class InvalidRemotePushDeviceTokenError(ZulipError):
    code = "INVALID_REMOTE_PUSH_DEVICE_TOKEN"

    def __init__(self) -> None:
        super().__init__("Device not recognized by the push bouncer")


class NoActivePushDeviceError(ZulipError):
    code = "NO_ACTIVE_PUSH_DEVICE"

    def __init__(self) -> None:
        super().__init__("No active registered push device")


class PushServiceError(ZulipError):
    """The push service could not be reached or failed; the request may be retried."""

    http_status = 502


class FailedToConnectBouncerError(PushServiceError):
    code = "FAILED_TO_CONNECT_BOUNCER"

    def __init__(self) -> None:
        super().__init__("Network error while connecting to Zulip push notification service.")


class InternalBouncerServerError(PushServiceError):
    code = "INTERNAL_SERVER_ERROR_ON_BOUNCER"

    def __init__(self) -> None:
        super().__init__("Internal server error on Zulip push notification service, retry later.")


class PushAdminActionRequiredError(ZulipError):
    code = "ADMIN_ACTION_REQUIRED"
    http_status = 403

    def __init__(self) -> None:
        super().__init__(
            "Push notification configuration issue on server, contact the server"
            " administrator or retry later."
        )


class ResourceNotFoundError(ZulipError):
    http_status = 404


class MethodNotAllowedError(ZulipError):
    """zulip-compat: Zulip's 405 names the allowed methods, in the body and the Allow header,
    and has no `code` (it comes from rest_dispatch, not from a JsonableError)."""

    http_status = 405

    def __init__(self, allowed_methods: list[str]) -> None:
        super().__init__("Method Not Allowed", allowed_methods=allowed_methods)
        self.allowed_methods = allowed_methods

    @property
    def headers(self) -> Mapping[str, str]:
        return {"Allow": ", ".join(self.allowed_methods)}

    def envelope(self) -> dict[str, object]:
        return {"result": "error", "msg": self.msg, "allowed_methods": self.allowed_methods}


class PayloadTooLargeError(ZulipError):
    http_status = 413


class UnauthorizedError(ZulipError):
    code = "UNAUTHORIZED"
    http_status = 401
    # zulip-compat: Zulip answers API 401s with a Basic challenge so curl and browsers prompt.
    default_headers: ClassVar[Mapping[str, str]] = {"WWW-Authenticate": 'Basic realm="zulip"'}

    def __init__(
        self, msg: str = "Not logged in: API authentication or user session required"
    ) -> None:
        super().__init__(msg)


class InvalidAPIKeyError(UnauthorizedError):
    def __init__(self) -> None:
        super().__init__("Invalid API key")


class UserDeactivatedError(UnauthorizedError):
    code = "USER_DEACTIVATED"

    def __init__(self) -> None:
        super().__init__("Account is deactivated")


class SessionUserDeactivatedError(UserDeactivatedError):
    # A session cookie's user was deactivated: a "Session" challenge like SessionRequiredError,
    # since a Basic one makes the browser pop up a password dialog over the web client (and
    # hold its request until someone answers it) instead of letting it go to the log-in page.
    default_headers: ClassVar[Mapping[str, str]] = {"WWW-Authenticate": "Session"}


class AuthenticationFailedError(UnauthorizedError):
    code = "AUTHENTICATION_FAILED"

    def __init__(self) -> None:
        super().__init__("Your username or password is incorrect")


class SessionRequiredError(UnauthorizedError):
    # zulip-compat: /json answers with a "Session" challenge, so no browser pops up a
    # password dialog (zerver/lib/response.py json_unauthorized).
    default_headers: ClassVar[Mapping[str, str]] = {"WWW-Authenticate": "Session"}


class ForbiddenError(ZulipError):
    http_status = 403


class CsrfFailedError(ZulipError):
    """A /json request changing state without the session's CSRF token (Django's reasons)."""

    code = "CSRF_FAILED"
    http_status = 403

    def __init__(self, reason: str) -> None:
        super().__init__(f"CSRF error: {reason}", reason=reason)


class RateLimitedError(ZulipError):
    code = "RATE_LIMIT_HIT"
    http_status = 429

    def __init__(self, retry_after_secs: float) -> None:
        super().__init__("API usage exceeded rate limit", **{"retry-after": retry_after_secs})
        self.retry_after_secs = retry_after_secs

    @property
    def headers(self) -> Mapping[str, str]:
        return {"Retry-After": str(max(1, round(self.retry_after_secs)))}


class BadImageError(ZulipError):
    code = "BAD_IMAGE"


class SystemGroupRequiredError(ZulipError):
    def __init__(self, setting_name: str) -> None:
        super().__init__(f"'{setting_name}' must be a system user group.")


class PreviousSettingValueMismatchedError(ZulipError):
    code = "EXPECTATION_MISMATCH"

    def __init__(self) -> None:
        super().__init__("'old' value does not match the expected value.")


class CannotDeactivateGroupInUseError(ZulipError):
    code = "CANNOT_DEACTIVATE_GROUP_IN_USE"

    def __init__(self, objections: list[dict[str, object]]) -> None:
        super().__init__("Cannot deactivate user group in use.", objections=objections)


class ValidationFailureError(ZulipError):
    """A model validation failure: the first message, and every message by field."""

    def __init__(self, msg: str, errors: dict[str, list[str]]) -> None:
        super().__init__(msg, errors=errors)


class CannotDeactivateLastUserError(ZulipError):
    """DELETE /users/me by the only user or the only owner (Zulip's extra fields)."""

    code = "CANNOT_DEACTIVATE_LAST_USER"

    def __init__(self, *, is_last_owner: bool) -> None:
        entity = "organization owner" if is_last_owner else "user"
        super().__init__(
            f"Cannot deactivate the only {entity}", is_last_owner=is_last_owner, entity=entity
        )


class ServerNotReadyError(ZulipError):
    """GET /health: a check failed (Zulip's ServerNotReadyError)."""

    code = "SERVER_NOT_READY"
    http_status = 500


class DiskFullError(ZulipError):
    """Nothing can be stored now: the disk (or quota) is full. Nothing was changed.

    503 with Retry-After, not 507: every 5xx makes python-zulip-api retry, and 503 is the
    status generic HTTP clients and proxies know as "temporarily unavailable, retry" (507 is
    WebDAV's and most retry policies ignore it). Zulip has no code for this; ours names it.
    """

    code = "DISK_FULL"
    http_status = 503
    default_headers: ClassVar[Mapping[str, str]] = {"Retry-After": "30"}

    def __init__(self) -> None:
        super().__init__("The server's disk is full; try again later.")
