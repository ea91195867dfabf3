"""Which addresses the server may connect to for someone else (a bot's URL, a link in a
message, an image): public internet addresses only, unless the operator allows more. Pure
functions; the client in `outbound.client` applies them to every address a name resolves to,
on every hop of a redirect.
"""

from __future__ import annotations

import ipaddress

import msgspec

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# Global unicast IPv6; everything outside it (loopback, unique-local, link-local, multicast,
# IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96 and 64:ff9b:1::/48...) is refused.
_IPV6_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")


class OutboundPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """What the operator allows besides the public internet.

    `allow_private`: every address (for self-hosted integrations on the server's own network).
    `allowed_networks`: these addresses or networks only (e.g. "10.0.0.5", "192.168.1.0/24").
    """

    allow_private: bool = False
    allowed_networks: tuple[str, ...] = ()

    def allows(self, address: str) -> bool:
        """Whether the server may connect to `address` (an IP address in text form)."""
        ip = parse_ip(address)
        if ip is None:
            return False
        if self.allow_private or is_public_ip(ip):
            return True
        return any(_in_network(ip, network) for network in self.allowed_networks)


def parse_ip(address: str) -> IPAddress | None:
    """The address, without a zone id or brackets; None when it is not an IP address."""
    text = address.strip().removeprefix("[").removesuffix("]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _in_network(ip: IPAddress, network: str) -> bool:
    try:
        return ip in ipaddress.ip_network(network.strip(), strict=False)
    except ValueError:
        return False


def is_public_ip(ip: IPAddress) -> bool:
    """Whether `ip` is on the public internet: never loopback, private, shared (CGNAT),
    link-local (169.254.169.254, the cloud metadata service), unique-local, multicast,
    reserved, unspecified, nor an IPv6 form that embeds such an IPv4 address."""
    if isinstance(ip, ipaddress.IPv4Address):
        return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified)
    if ip not in _IPV6_GLOBAL_UNICAST or not ip.is_global or ip.is_multicast:
        return False
    if ip.teredo is not None:  # 2001::/32 tunnels to an IPv4 address we cannot check
        return False
    embedded = ip.sixtofour  # 2002::/16 embeds an IPv4 address
    return embedded is None or is_public_ip(embedded)


def is_public_address(address: str) -> bool:
    """`is_public_ip` for an address in text form (False for anything that is not one)."""
    ip = parse_ip(address)
    return ip is not None and is_public_ip(ip)
