"""The one way the server makes HTTP requests to other hosts (outgoing webhooks, URL
previews, the push service, images): `OutboundClient.fetch`. No other module opens an
outbound connection (tests/test_outbound_guard.py checks this).

Guarantees: every address a name resolves to is checked against the `OutboundPolicy` and the
connection goes to that checked address (no DNS rebinding); every redirect hop is checked
again; one deadline covers the whole request (resolution, connection, every hop, the last
byte); responses are read up to a size; requests run on the event loop (async I/O, name
resolution in a small pool of its own), never in the threads log-ins and uploads use; each
sender (a bot, a user) has a cap on requests in flight.
"""

from __future__ import annotations

from teamchat.lib.outbound.client import (
    OutboundBusyError,
    OutboundClient,
    OutboundConnectError,
    OutboundError,
    OutboundProtocolError,
    OutboundResponse,
    OutboundTimeoutError,
    TargetNotAllowedError,
)
from teamchat.lib.outbound.excerpt import safe_excerpt
from teamchat.lib.outbound.guard import OutboundPolicy, is_public_address

__all__ = [
    "OutboundBusyError",
    "OutboundClient",
    "OutboundConnectError",
    "OutboundError",
    "OutboundPolicy",
    "OutboundProtocolError",
    "OutboundResponse",
    "OutboundTimeoutError",
    "TargetNotAllowedError",
    "is_public_address",
    "safe_excerpt",
]
