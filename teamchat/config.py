"""Settings: the one frozen configuration object, built by the CLI from flags and environment.

Every tunable that a user or a test may change lives here, with its unit in the name.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import msgspec

from teamchat.lib.db_url import is_database_url
from teamchat.lib.integers import is_ascii_digits
from teamchat.lib.queue_ids import check_process

DEFAULT_DB_PATH = "teamchat.db"


TRUE_WORDS = ("1", "true", "yes", "on")


class RateLimit(msgspec.Struct, frozen=True, kw_only=True):
    """At most `max_requests` in any window of `window_secs`; 0 requests disables the limit."""

    max_requests: int
    window_secs: float

    @classmethod
    def parse(cls, text: str) -> RateLimit:
        """Parse "N/SECS" (e.g. "200/60"); "0" or "off" disables."""
        if text.strip().lower() in {"0", "off", "none"}:
            return cls(max_requests=0, window_secs=1)
        count, _, secs = text.partition("/")
        return cls(max_requests=int(count), window_secs=float(secs or 60))


def bind_url(host: str, port: int) -> str:
    """The URL of a bind address (a wildcard address means this machine: 127.0.0.1)."""
    host = "127.0.0.1" if host in {"0.0.0.0", "::", ""} else host
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def check_external_url(text: str) -> str:
    """`text` as an external URL (scheme://host[:port], no trailing slash); ValueError if it
    is not one."""
    parts = urllib.parse.urlsplit(text.strip())
    try:
        parts.port  # noqa: B018  (raises ValueError for a port that is not a number)
    except ValueError:
        raise ValueError(f"{text!r} has an invalid port") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{text!r} is not an http:// or https:// URL")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ValueError(f"{text!r} must be scheme://host[:port], without a path")
    return f"{parts.scheme}://{parts.netloc.lower()}"


def parse_peers(text: str) -> tuple[tuple[int, str], ...]:
    """Parse "N=URL,N=URL" (each process's number and the URL it is reached at directly);
    ValueError if an entry is not one."""
    peers: dict[int, str] = {}
    for entry in (piece.strip() for piece in text.split(",")):
        if not entry:
            continue
        number, sep, url = entry.partition("=")
        if not sep or not is_ascii_digits(number.strip()):
            raise ValueError(f"{entry!r} is not N=URL (a process number, =, its URL)")
        process = check_process(int(number))
        if process in peers:
            raise ValueError(f"process {process} is given twice")
        peers[process] = check_external_url(url)
    return tuple(sorted(peers.items()))


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    db_path: Path
    # A postgresql:// URL given as --db / TEAMCHAT_DB: the data lives there, and `db_path`
    # only names where files that sit beside a database file go (zuliprc, the server lock).
    db_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 9991
    # The URL people reach us at, given by --external-url / TEAMCHAT_EXTERNAL_URL. `serve`
    # pins it in the database (the first bind address when none is given); every link that
    # leaves a request's answer uses the pinned one (`Runtime.external_url`), never a Host.
    external_url: str | None = None
    log_level: str = "info"
    # Event queues (Zulip: heartbeat about every 60 s, queues die after 10 idle minutes).
    heartbeat_secs: float = 45.0
    heartbeat_jitter_secs: float = 10.0
    longpoll_timeout_secs: int = 90
    queue_idle_timeout_secs: float = 600.0
    queue_max_idle_timeout_secs: float = 7 * 24 * 3600.0
    gc_interval_secs: float = 60.0
    # How often the server looks for changes other processes (the admin CLI) committed.
    change_poll_interval_secs: float = 0.2
    # How often due scheduled messages and reminders are looked for.
    scheduler_interval_secs: float = 1.0
    # Requests the server makes for someone (outgoing webhooks, URL previews, images) go to
    # public internet addresses only. `outbound_allow_private` allows every address (for
    # integrations on the server's own network; tests use it to reach their own listeners);
    # `outbound_allowed_networks` allows just these addresses or networks ("10.0.0.5").
    outbound_allow_private: bool = False
    outbound_allowed_networks: tuple[str, ...] = ()
    # One deadline for a whole outbound request (every redirect and byte included).
    outbound_deadline_secs: float = 10.0
    # Requests in flight per sender (a bot, its owner, a user) and in all.
    outbound_max_per_sender: int = 2
    outbound_max_connections: int = 32
    # Password-less log-in for development (POST /dev_fetch_api_key): never in production.
    dev_auth: bool = False
    # How often messages past their retention period are deleted.
    retention_interval_secs: float = 86400.0
    # People without presence for this many days become idle: channel messages that carry
    # no flag for them are stored without their row until they come back (0: never).
    idle_after_days: int = 28
    idle_check_interval_secs: float = 3600.0
    # Message ids written out per transaction when an idle person comes back (a long absence
    # is written in steps, so sends are not held up behind one big transaction).
    idle_catch_up_step: int = 20_000
    # Rate limits (Zulip's defaults: 200 API requests a minute per user, 5 failed logins per
    # username in 30 minutes).
    api_rate_limit: RateLimit = RateLimit(max_requests=200, window_secs=60)
    auth_rate_limit: RateLimit = RateLimit(max_requests=5, window_secs=1800)
    # Failed logins from one client IP across all usernames (stops spraying many accounts).
    login_ip_rate_limit: RateLimit = RateLimit(max_requests=30, window_secs=1800)
    invitation_link_validity_minutes: int = 14400
    max_file_upload_size_mib: int = 25
    # Where upload bytes (files, thumbnails, avatars, custom emoji, exports) are kept:
    # "database" (in the database file), a directory (local or a shared NFS mount), or
    # "s3://bucket/prefix" (S3-compatible storage; credentials from the usual AWS variables).
    uploads: str = "database"
    s3_endpoint_url: str | None = None
    s3_region: str | None = None
    push_service_url: str | None = None
    # The server's credentials at the push service (Zulip's ZULIP_ORG_ID / ZULIP_ORG_KEY),
    # sent as HTTP Basic authentication when both are set.
    push_service_org_id: str | None = None
    push_service_org_key: str | None = None
    # Outgoing mail (invitations): nothing is sent unless smtp_host is set.
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_username: str | None = None
    smtp_password: str | None = None
    # "none", "starttls" or "ssl".
    smtp_security: str = "none"
    smtp_from: str = "noreply@teamchat.local"
    # A folder where every email is also written (one .eml file each) and logged to the
    # console; the sandbox (`serve --dev`) sets it and shows the emails at /emails/.
    email_log_dir: Path | None = None
    reader_connections: int = 4
    # Automatic backups by `serve` into <db folder>/backups: every N hours (0: off), keep N.
    backup_every_hours: float = 0.0
    backup_keep: int = 7
    # Zulip's CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE: limited guests also get no presence
    # or status of the people they may not access (off, as in Zulip: costlier queries).
    guest_access_limits_presence: bool = False
    # Slow or abandoned connections (see SECURITY.md): the request line and headers must
    # arrive within header_timeout_secs; a body may pause at most body_timeout_secs; an idle
    # keep-alive connection is closed after keep_alive_timeout_secs; at most max_connections
    # open connections, max_connections_per_ip from one address (0: no per-address cap).
    header_timeout_secs: float = 20.0
    body_timeout_secs: float = 30.0
    keep_alive_timeout_secs: int = 5
    max_connections: int = 4000
    max_connections_per_ip: int = 256
    # The hottest routes (a send, GET /users/me...) skip the framework's routing when the
    # request is plain (http/lean.py); off, every request takes the ordinary route (the same
    # answers, slower: for comparing the two).
    lean_routes: bool = True
    # Several processes behind a reverse proxy (docs/several-processes.md): this process's
    # number, carried by every queue id it allocates (None: the only process, ids as ever),
    # and every process's number and direct URL, for the requests the proxy cannot route by
    # queue id (a queue id in a form body), which are forwarded to the queue's process.
    process: int | None = None
    peers: tuple[tuple[int, str], ...] = ()

    @classmethod
    def from_env(cls, db_path: Path | str | None = None, **overrides: object) -> Settings:
        """Build settings from TEAMCHAT_* environment variables, then explicit overrides.
        `db_path` (or TEAMCHAT_DB) is a SQLite file or a postgresql:// URL."""
        env = os.environ
        target = db_path or env.get("TEAMCHAT_DB", DEFAULT_DB_PATH)
        values: dict[str, object] = {"db_path": Path(target)}
        if is_database_url(target):
            # Files kept beside a database file (zuliprc) go to the working directory.
            values = {"db_path": Path("teamchat-postgresql").absolute(), "db_url": target}
        readers: dict[str, tuple[str, Callable[[str], object]]] = {
            "external_url": ("TEAMCHAT_EXTERNAL_URL", str),
            "log_level": ("TEAMCHAT_LOG_LEVEL", str),
            "heartbeat_secs": ("TEAMCHAT_HEARTBEAT_SECS", float),
            "heartbeat_jitter_secs": ("TEAMCHAT_HEARTBEAT_JITTER_SECS", float),
            "queue_idle_timeout_secs": ("TEAMCHAT_QUEUE_IDLE_TIMEOUT_SECS", float),
            "gc_interval_secs": ("TEAMCHAT_GC_INTERVAL_SECS", float),
            "change_poll_interval_secs": ("TEAMCHAT_CHANGE_POLL_INTERVAL_SECS", float),
            "scheduler_interval_secs": ("TEAMCHAT_SCHEDULER_INTERVAL_SECS", float),
            "dev_auth": ("TEAMCHAT_DEV_AUTH", lambda text: text.strip().lower() in TRUE_WORDS),
            "outbound_allow_private": (
                "TEAMCHAT_OUTBOUND_ALLOW_PRIVATE",
                lambda text: text.strip().lower() in TRUE_WORDS,
            ),
            "outbound_allowed_networks": (
                "TEAMCHAT_OUTBOUND_ALLOWED_NETWORKS",
                lambda text: tuple(n.strip() for n in text.split(",") if n.strip()),
            ),
            "outbound_deadline_secs": ("TEAMCHAT_OUTBOUND_DEADLINE_SECS", float),
            "outbound_max_per_sender": ("TEAMCHAT_OUTBOUND_MAX_PER_SENDER", int),
            "outbound_max_connections": ("TEAMCHAT_OUTBOUND_MAX_CONNECTIONS", int),
            "retention_interval_secs": ("TEAMCHAT_RETENTION_INTERVAL_SECS", float),
            "idle_after_days": ("TEAMCHAT_IDLE_AFTER_DAYS", int),
            "idle_check_interval_secs": ("TEAMCHAT_IDLE_CHECK_INTERVAL_SECS", float),
            "idle_catch_up_step": ("TEAMCHAT_IDLE_CATCH_UP_STEP", int),
            "api_rate_limit": ("TEAMCHAT_API_RATE_LIMIT", RateLimit.parse),
            "auth_rate_limit": ("TEAMCHAT_AUTH_RATE_LIMIT", RateLimit.parse),
            "login_ip_rate_limit": ("TEAMCHAT_LOGIN_IP_RATE_LIMIT", RateLimit.parse),
            "invitation_link_validity_minutes": ("TEAMCHAT_INVITATION_LINK_VALIDITY_MINUTES", int),
            "max_file_upload_size_mib": ("TEAMCHAT_MAX_FILE_UPLOAD_SIZE_MIB", int),
            "uploads": ("TEAMCHAT_UPLOADS", str),
            "s3_endpoint_url": ("TEAMCHAT_S3_ENDPOINT_URL", str),
            "s3_region": ("TEAMCHAT_S3_REGION", str),
            "push_service_url": ("TEAMCHAT_PUSH_SERVICE_URL", str),
            "push_service_org_id": ("TEAMCHAT_PUSH_SERVICE_ORG_ID", str),
            "push_service_org_key": ("TEAMCHAT_PUSH_SERVICE_ORG_KEY", str),
            "smtp_host": ("TEAMCHAT_SMTP_HOST", str),
            "smtp_port": ("TEAMCHAT_SMTP_PORT", int),
            "smtp_username": ("TEAMCHAT_SMTP_USERNAME", str),
            "smtp_password": ("TEAMCHAT_SMTP_PASSWORD", str),
            "smtp_security": ("TEAMCHAT_SMTP_SECURITY", str),
            "smtp_from": ("TEAMCHAT_SMTP_FROM", str),
            "email_log_dir": ("TEAMCHAT_EMAIL_LOG_DIR", Path),
            "backup_every_hours": ("TEAMCHAT_BACKUP_EVERY_HOURS", float),
            "backup_keep": ("TEAMCHAT_BACKUP_KEEP", int),
            "guest_access_limits_presence": (
                "TEAMCHAT_GUEST_ACCESS_LIMITS_PRESENCE",
                lambda text: text.strip().lower() in TRUE_WORDS,
            ),
            "header_timeout_secs": ("TEAMCHAT_HEADER_TIMEOUT_SECS", float),
            "body_timeout_secs": ("TEAMCHAT_BODY_TIMEOUT_SECS", float),
            "keep_alive_timeout_secs": ("TEAMCHAT_KEEP_ALIVE_TIMEOUT_SECS", int),
            "max_connections": ("TEAMCHAT_MAX_CONNECTIONS", int),
            "max_connections_per_ip": ("TEAMCHAT_MAX_CONNECTIONS_PER_IP", int),
            "process": ("TEAMCHAT_PROCESS", lambda text: check_process(int(text))),
            "peers": ("TEAMCHAT_PEERS", parse_peers),
            "lean_routes": (
                "TEAMCHAT_LEAN_ROUTES",
                lambda text: text.strip().lower() in TRUE_WORDS,
            ),
        }
        if env.get("TEAMCHAT_URL_PREVIEW_ALLOW_PRIVATE"):  # the setting's former name
            readers["outbound_allow_private"] = (
                "TEAMCHAT_URL_PREVIEW_ALLOW_PRIVATE",
                lambda text: text.strip().lower() in TRUE_WORDS,
            )
        for field, (var, parse) in readers.items():
            if env.get(var):
                values[field] = parse(env[var])
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
