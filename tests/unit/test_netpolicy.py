"""The local-only guarantee: a model server off this machine and off private networks is refused before
any request, unless listed in model.allowed_hosts; ``acode config show`` says who may be contacted."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from acode.config.model import ModelSettings
from acode.errors import ConfigError
from acode.netpolicy import check_url, judge_url


def fixed(*addresses: str):
    return lambda host: list(addresses)


@pytest.mark.parametrize("url, why", [
    ("http://127.0.0.1:11434/v1", "loopback"),
    ("http://localhost:8080/v1", "loopback"),
    ("http://[::1]:8000/v1", "loopback"),
    ("http://10.1.2.3:8000/v1", "private network"),
    ("http://192.168.1.20/v1", "private network"),
    ("http://172.20.0.4/v1", "private network"),
    ("http://[fd00::5]/v1", "private network"),
])
def test_local_and_private_addresses_are_allowed(url, why):
    verdict = judge_url(url, resolver=fixed("8.8.8.8"))
    assert verdict.allowed and verdict.why == why


def test_public_addresses_and_names_are_refused_unless_listed():
    assert not judge_url("http://8.8.8.8/v1").allowed
    assert not judge_url("https://api.example.com/v1", resolver=fixed("93.184.216.34")).allowed
    # a name that resolves to a private address is fine; one that mixes private and public is not
    assert judge_url("http://gpu-box.lan:8000/v1", resolver=fixed("192.168.1.7")).allowed
    assert not judge_url("http://gpu-box.lan/v1", resolver=fixed("192.168.1.7", "8.8.4.4")).allowed
    # listed by name, by address, or by network
    assert judge_url(
        "https://api.example.com/v1", ["API.example.com"], resolver=fixed("93.184.216.34")
    ).allowed
    assert judge_url("http://8.8.8.8/v1", ["8.8.8.8"]).allowed
    assert judge_url("http://gpu.example.org/v1", ["93.184.0.0/16"], resolver=fixed("93.184.216.34")).allowed


def test_a_name_that_does_not_resolve_is_refused_with_the_reason():
    def fail(host):
        raise socket.gaierror(-2, "Name or service not known")

    verdict = judge_url("http://nowhere.invalid/v1", resolver=fail)
    assert not verdict.allowed and "could not be resolved" in verdict.why


def test_building_an_openai_model_for_a_hosted_service_sends_nothing(monkeypatch):
    from acode.llm.factory import build_model

    attempts: list[object] = []
    real_connect = socket.socket.connect

    def record(self, address):
        attempts.append(address)
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", record)
    settings = ModelSettings(backend="openai", name="gpt-4o", base_url="http://8.8.8.8/v1")
    with pytest.raises(ConfigError) as caught:
        build_model(settings)
    assert caught.value.code == "ACODE-NET-001" and caught.value.exit_code == 2
    assert "model.allowed_hosts" in str(caught.value) and "8.8.8.8" in str(caught.value)
    assert attempts == []


def test_check_url_returns_the_verdict_when_allowed():
    assert check_url("http://127.0.0.1:9/v1").why == "loopback"


def _acode(*args, cwd, env):
    return subprocess.run(
        [sys.executable, "-m", "acode", *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def test_one_shot_against_a_public_server_exits_2_and_names_the_setting(git_repo):
    env = {"ACODE_MODEL__BACKEND": "openai", "ACODE_MODEL__BASE_URL": "http://8.8.8.8:80/v1"}
    out = _acode("-p", "hello", cwd=git_repo, env=env)
    assert out.returncode == 2, out.stderr
    assert "ACODE-NET-001" in out.stderr and "model.allowed_hosts" in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_config_show_lists_who_may_be_contacted(git_repo):
    env = {
        "ACODE_MODEL__BACKEND": "openai",
        "ACODE_MODEL__BASE_URL": "http://8.8.8.8/v1",
        "ACODE_MODEL__ALLOWED_HOSTS": "[gpu.example.org]",
    }
    shown = _acode("config", "show", cwd=git_repo, env=env)
    assert shown.returncode == 0, shown.stderr
    assert (
        "acode may contact only" in shown.stdout and "gpu.example.org (model.allowed_hosts)" in shown.stdout
    )
    assert "model.base_url http://8.8.8.8/v1: REFUSED" in shown.stdout
    data = json.loads(_acode("config", "show", "--json", cwd=git_repo, env=env).stdout)
    assert data["network"]["allowed_hosts"] == ["gpu.example.org"]
    assert data["network"]["endpoints"][0] == {
        "setting": "model.base_url",
        "url": "http://8.8.8.8/v1",
        "host": "8.8.8.8",
        "allowed": False,
        "why": "it is a public address (8.8.8.8)",
    }


def test_contact_report_covers_routed_models_and_mcp_urls():
    from acode.config.settings import Settings
    from acode.netpolicy import contact_report

    settings = Settings.model_validate(
        {
            "model": {"backend": "embedded"},
            "routing": {
                "purposes": {"compression": {"backend": "openai", "base_url": "http://192.168.1.9:8000/v1"}}
            },
            "mcp_servers": {"kb": {"url": "http://8.8.8.8/mcp"}, "local": {"command": "kb-server"}},
        }
    )
    report = contact_report(settings, resolver=fixed("8.8.8.8"))
    assert [(e["setting"], e["allowed"]) for e in report["endpoints"]] == [
        ("routing.purposes.compression.base_url", True),
        ("mcp_servers.kb.url", False),
    ]
    assert report["embedded_model"] is True
