"""The bearer token, and the refusal to serve beyond loopback without one."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from evaluator.api import UnsafeBindError, check_bind, is_loopback
from tests.api.support import Api, world_env
from tests.helpers import free_port
from tests.reports._world import World


def test_without_the_token_every_endpoint_answers_401(serve: Callable[..., Api]) -> None:
    api = serve(token="s3cret")
    requests = [("POST", "/v1/runs", {"agent_version": "base", "task_set": "mini"}),
                ("GET", "/v1/runs/abc", None), ("GET", "/v1/leaderboard?task_set=mini", None),
                ("GET", "/v1/compare?task_set=mini&a=base&b=cand", None)]
    for token in (None, "wrong", "S3CRET"):
        with api.client(token) as c:
            for method, path, body in requests:
                r = c.request(method, path, json=body)
                assert r.status_code == 401, (token, path, r.text)
                assert r.headers["www-authenticate"] == "Bearer"
                assert "Authorization: Bearer" in r.json()["detail"]
            # Nothing about the input is told before the token is right.
            r = c.post("/v1/runs", content=b"{not json", headers={"content-type": "application/json"})
            assert r.status_code == 401
    with api.client(None) as c:
        r = c.get("/v1/runs/abc", headers={"Authorization": "Basic czNjcmV0"})
        assert r.status_code == 401
    with api.client() as c:
        assert c.get("/v1/runs/abc").status_code == 404
        assert c.get("/v1/leaderboard", params={"task_set": "mini"}).status_code == 200
    with api.client(None) as c:
        assert c.get("/openapi.json").status_code == 200  # the schema is not a secret


def test_without_a_token_set_no_token_is_needed(api: Api) -> None:
    with api.client(None) as c:
        assert c.get("/v1/leaderboard", params={"task_set": "mini"}).status_code == 200


def test_serve_refuses_a_public_address_without_a_token(world: World, tmp_path: Path) -> None:
    port = free_port()
    env = world_env(world, tmp_path)
    env.pop("EVAL_API_TOKEN", None)
    out = subprocess.run([sys.executable, "-m", "evaluator", "serve", "--host", "0.0.0.0",
                          "--port", str(port)], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2
    assert "refusing to serve on '0.0.0.0' without a token" in out.stderr
    assert "EVAL_API_TOKEN" in out.stderr
    with socket.socket() as s, pytest.raises(ConnectionRefusedError):
        s.connect(("127.0.0.1", port))


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.9", "::1", "[::1]", "localhost"])
def test_loopback_needs_no_token(host: str) -> None:
    assert is_loopback(host)
    check_bind(host, None)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3", "eval.example.com"])
def test_any_other_address_needs_a_token(host: str) -> None:
    assert not is_loopback(host)
    with pytest.raises(UnsafeBindError, match="EVAL_API_TOKEN"):
        check_bind(host, None)
    check_bind(host, "a-token")
