"""The local-only guarantee: acode talks to model servers (and HTTP MCP servers) only on this machine, on
a private network, or on a host the user listed in ``model.allowed_hosts``. Anything else is refused
*before* a request is made, with an error that names the setting.

    check_host("http://10.0.0.5:8000/v1", allowed=[])        # fine: a private address
    check_host("https://api.example.com/v1", allowed=[])     # ConfigError ACODE-NET-001, exit 2

A host name is resolved (one DNS lookup, no connection) and every address it resolves to must be local
or private; ``localhost`` and ``*.localhost`` count as loopback without a lookup. ``allowed_hosts``
entries are host names (exact, case-insensitive), IP addresses or networks in CIDR form.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from acode.errors import ConfigError

SETTING = "model.allowed_hosts"
LOCAL_RANGES = (
    "loopback (127.0.0.0/8, ::1, localhost)",
    "private (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7)",
    "link-local (169.254.0.0/16, fe80::/10)",
)

Resolver = Callable[[str], list[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class HostVerdict:
    url: str
    host: str
    allowed: bool
    why: str  # "loopback", "private network", "listed in model.allowed_hosts", or the reason it is refused


def _resolve(host: str) -> list[str]:
    infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return sorted({info[4][0] for info in infos})


def _kind(address: IPAddress) -> str | None:
    """'loopback' / 'private network' / None (public) for one address."""
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        address = mapped
    if address.is_loopback:
        return "loopback"
    if address.is_private or address.is_link_local:
        return "private network"
    return None


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` names this machine by its address (``127.0.0.0/8``, ``::1``, an IPv4-mapped
    loopback) or as ``localhost``. Names are not read for what they look like: ``127.example.com`` is
    not loopback, and nothing is resolved."""
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return _kind(address) == "loopback"


def _listed(host: str, addresses: Sequence[IPAddress], allowed: Sequence[str]) -> bool:
    for entry in allowed:
        entry = entry.strip().lower().rstrip(".")
        if not entry:
            continue
        if entry == host:
            return True
        try:
            network = ipaddress.ip_network(entry, strict=False)
        except ValueError:
            continue
        if any(a.version == network.version and a in network for a in addresses):
            return True
    return False


def judge_url(url: str, allowed: Sequence[str] = (), *, resolver: Resolver | None = None) -> HostVerdict:
    """Whether acode may send requests to ``url``, and why (no exception)."""
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        host = ""
    if not host:
        return HostVerdict(url, "", False, "the URL has no host name")
    try:
        addresses: list[IPAddress] = [ipaddress.ip_address(host)]
    except ValueError:
        addresses = []
    if not addresses and (host == "localhost" or host.endswith(".localhost")):
        return HostVerdict(url, host, True, "loopback")
    if _listed(host, addresses, allowed):
        return HostVerdict(url, host, True, f"listed in {SETTING}")
    if not addresses:
        try:
            addresses = [ipaddress.ip_address(a.split("%")[0]) for a in (resolver or _resolve)(host)]
        except (OSError, ValueError) as exc:
            return HostVerdict(url, host, False, f"it could not be resolved ({exc})")
        if _listed(host, addresses, allowed):
            return HostVerdict(url, host, True, f"listed in {SETTING}")
    kinds = [_kind(a) for a in addresses]
    if addresses and all(kinds):
        return HostVerdict(url, host, True, "loopback" if set(kinds) == {"loopback"} else "private network")
    public = [str(a) for a, k in zip(addresses, kinds, strict=True) if k is None]
    return HostVerdict(url, host, False, f"it is a public address ({', '.join(public) or 'none found'})")


def check_url(url: str, allowed: Sequence[str] = (), *, what: str = "model server",
              setting: str = "model.base_url", resolver: Resolver | None = None) -> HostVerdict:
    """Raise ``ConfigError`` (exit 2) unless ``url`` is local, private or listed; nothing is sent."""
    verdict = judge_url(url, allowed, resolver=resolver)
    if not verdict.allowed:
        shown = verdict.host or url
        raise ConfigError(
            "ACODE-NET-001",
            f"refusing to contact the {what} at {url} ({setting}): {shown} is not on this machine or a "
            f"private network, and {verdict.why.removeprefix('it ')}. acode keeps code on your machine: it "
            f"talks only to loopback, private addresses, and hosts listed in {SETTING}",
            hint=f"run the server locally, or if {shown} is your own machine add it to {SETTING} "
            f"(e.g. `{SETTING}: [{shown}]` in .acode/config.yml)",
        )
    return verdict


def contact_report(settings, *, resolver: Resolver | None = None) -> dict:
    """What ``acode config show`` tells about the network: the rule and each configured endpoint."""
    allowed = list(settings.model.allowed_hosts)
    endpoints = []
    if settings.model.backend == "openai":
        endpoints.append(("model.base_url", settings.model.base_url))
    routing = settings.routing
    choices = {
        "routing.utility": routing.utility,
        "routing.complexity.simple_model": routing.complexity.simple_model,
        "routing.complexity.complex_model": routing.complexity.complex_model,
        **{f"routing.purposes.{k}": v for k, v in routing.purposes.items()},
    }
    for where, choice in choices.items():
        if choice is not None and choice.base_url and (choice.backend or settings.model.backend) == "openai":
            endpoints.append((f"{where}.base_url", choice.base_url))
    for name, server in settings.mcp_servers.items():
        url = getattr(server, "url", None)
        if url:
            endpoints.append((f"mcp_servers.{name}.url", url))
    checked = []
    for setting, url in endpoints:
        verdict = judge_url(url, allowed, resolver=resolver)
        checked.append(
            {
                "setting": setting,
                "url": url,
                "host": verdict.host,
                "allowed": verdict.allowed,
                "why": verdict.why,
            }
        )
    return {
        "may_contact": [*LOCAL_RANGES, *(f"{h} ({SETTING})" for h in allowed)],
        "allowed_hosts": allowed,
        "endpoints": checked,
        "embedded_model": settings.model.backend == "embedded",
    }
