"""The outbound client's rules that need no server: which addresses are public, what of an
answer a person may be shown, and that no other module opens a connection of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from teamchat.lib.outbound import OutboundPolicy, is_public_address, safe_excerpt

PACKAGE = Path(__file__).resolve().parents[1] / "teamchat"
OUTBOUND = PACKAGE / "lib" / "outbound"
# Modules that open connections to other hosts: only the outbound client may import them.
NETWORK_MODULES = {
    "socket", "http.client", "urllib.request", "urllib3", "httpx", "requests", "aiohttp",
    "h11", "ftplib", "telnetlib", "xmlrpc.client", "websockets", "smtplib",
}  # fmt: skip
# Calls that open a connection or resolve a name, whatever module they come from.
NETWORK_CALLS = {
    "open_connection", "create_connection", "getaddrinfo", "gethostbyname", "connect_ex",
    "create_datagram_endpoint", "sock_connect", "urlopen",
}  # fmt: skip
# Mail goes to the operator's SMTP relay (never a URL a user chose), from this module only.
# Mail has its own client; the server binds its listening socket before anything else. A
# request about another process's event queue goes to that process, at the address the
# operator gave in --peers (never one a user chose).
EXCEPTIONS = {
    "actions/org/mail.py": {"smtplib"},
    "http/peers.py": {"urllib"},
    "cli/server.py": {"socket", "getaddrinfo"},
    "cli/main.py": {"socket"},
}

PRIVATE = [
    "127.0.0.1", "127.1.2.3", "0.0.0.0", "0.1.2.3", "10.1.2.3", "172.16.0.1", "192.168.1.1",
    "169.254.169.254", "100.64.0.1", "192.0.0.1", "198.18.0.1", "224.0.0.1", "240.0.0.1",
    "255.255.255.255", "::1", "::", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
    "::127.0.0.1", "64:ff9b::7f00:1", "64:ff9b:1::a00:1", "fd00::1", "fc00::1", "fe80::1",
    "fe80::1%eth0", "fec0::1", "ff02::1", "ff0e::1", "2001:db8::1", "2001::7f00:1",
    "2002:7f00:1::", "2002:a9fe:a9fe::1", "100::1", "not an address", "localhost",
]  # fmt: skip
PUBLIC = ["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "2606:4700::1111", "2002:808:808::1"]


@pytest.mark.parametrize("address", PRIVATE)
def test_internal_addresses_are_not_public(address: str) -> None:
    assert not is_public_address(address)
    assert not OutboundPolicy().allows(address)


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_are(address: str) -> None:
    assert is_public_address(address) and OutboundPolicy().allows(address)


def test_the_operator_can_allow_one_network_or_everything() -> None:
    one = OutboundPolicy(allowed_networks=("10.0.0.5", "192.168.7.0/24"))
    assert one.allows("10.0.0.5") and one.allows("192.168.7.200")
    assert not one.allows("10.0.0.6") and not one.allows("127.0.0.1")
    assert OutboundPolicy(allow_private=True).allows("127.0.0.1")
    assert not OutboundPolicy(allow_private=True).allows("not an address")


def test_an_excerpt_is_short_printable_and_cannot_close_its_code_block() -> None:
    hostile = "```\n@**all** \x1b[31mred\x00 <b>x</b>\u202e".encode()
    shown = safe_excerpt(hostile + b" " + b"A" * 5000)
    assert "`" not in shown and "\x1b" not in shown and "\x00" not in shown
    assert "\n" not in shown and "\u202e" not in shown
    assert len(shown) <= 201 and shown.endswith("…")
    assert shown.startswith("@**all** [31mred <b>x</b>")
    assert safe_excerpt(b"  short\r\n answer ") == "short answer"
    assert safe_excerpt(b"") == ""


def _network_uses(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Attribute) and node.attr in NETWORK_CALLS:
            found.append(node.attr)
        elif isinstance(node, ast.Name) and node.id in NETWORK_CALLS:
            found.append(node.id)
    return [
        name
        for name in found
        if name in NETWORK_CALLS
        or any(name == m or name.startswith(m + ".") for m in NETWORK_MODULES)
    ]


def test_only_the_outbound_client_opens_connections() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(OUTBOUND):
            continue
        allowed = EXCEPTIONS.get(str(path.relative_to(PACKAGE)), set())
        problems += [
            f"{path.relative_to(PACKAGE)}: {name}"
            for name in _network_uses(path)
            if name.split(".")[0] not in allowed
        ]
    assert not problems, "use rt.outbound.fetch instead:\n" + "\n".join(problems)
    # The check itself sees what it looks for.
    assert {"socket", "getaddrinfo", "open_connection", "h11"} <= set(
        _network_uses(OUTBOUND / "client.py")
    )
