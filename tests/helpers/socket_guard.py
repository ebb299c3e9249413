"""Run ``python -m acode`` with every name lookup and socket connection recorded (one JSON line each in
the file named by ``SOCKET_LOG``). Anything that is not a loopback address is refused *before* it happens,
so a test that uses this never sends a byte to another host, whatever the code under test tries.

    python tests/helpers/socket_guard.py -p "..."     # as `python -m acode -p "..."`
"""

from __future__ import annotations

import ipaddress
import json
import os
import runpy
import socket
import sys

LOG = os.environ["SOCKET_LOG"]


def _record(kind: str, target: object) -> None:
    with open(LOG, "a", encoding="utf-8") as handle:
        handle.write(json.dumps([kind, str(target)]) + "\n")


def _loopback(host: object) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


_getaddrinfo = socket.getaddrinfo
_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex


def getaddrinfo(host, *args, **kwargs):
    _record("getaddrinfo", host)
    if not _loopback(host):
        raise socket.gaierror(socket.EAI_NONAME, f"lookup of {host} refused by the test's socket guard")
    return _getaddrinfo(host, *args, **kwargs)


def _checked(address) -> None:
    if isinstance(address, tuple):
        _record("connect", address[0])
        if not _loopback(address[0]):
            raise OSError(f"connection to {address[0]} refused by the test's socket guard")


def connect(self, address):
    _checked(address)
    return _connect(self, address)


def connect_ex(self, address):
    _checked(address)
    return _connect_ex(self, address)


socket.getaddrinfo = getaddrinfo
socket.socket.connect = connect
socket.socket.connect_ex = connect_ex

if __name__ == "__main__":
    sys.argv = ["acode", *sys.argv[1:]]
    runpy.run_module("acode", run_name="__main__", alter_sys=True)
