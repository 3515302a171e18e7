"""Every setting of the harness, declared once, in the order of docs/settings.md.

Add one as one more `Setting` here (variable, kind, default, one line of doc, group; a `flag`
if commands take it as an option), read it as `settings.<name>`, and regenerate the table with
`python -m evaluator config --markdown > docs/settings.md` (a test fails until you do).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evaluator.settings._setting import (
    PATH,
    TEXT,
    Kind,
    Setting,
    SettingError,
    Source,
    choice,
    command,
    matching,
    names,
    number,
    whole,
)

_CHECKOUT = Path(__file__).resolve().parents[2]

# Groups in the order the table shows them, each with the sentence that heads it.
GROUPS: dict[str, str] = {
    "paths": "Where the harness reads and writes, relative to the current directory. Every "
             "command that reads paths takes the same options, which win over the variables.",
    "execution": "Sandboxes and the executor that runs them.",
    "remote": "The remote store: an S3-compatible bucket the local store fronts as a team cache "
              "(credentials and region come from botocore's usual chain: `AWS_*`, profiles, roles).",
    "api": "The HTTP API (`evaluator serve`).",
    "runs": "What one `doit` invocation plans and how its report decides.",
    "images": "Building the base image from pinned Debian packages.",
    "internal": "Set by the harness for the processes it starts; not for users to set.",
    "external": "Owned by other tools; the harness reads them too.",
}


def cache_home() -> Path:
    """The user's cache folder (`$XDG_CACHE_HOME`, else ~/.cache): where the harness's own
    state that is no setting of its own goes (seccomp profiles, Debian packages, daemonless
    images), read here so that no module outside settings reads the environment."""
    return Path(os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache"))


def _deb_cache() -> Path:
    return cache_home() / "evaluator" / "debs"


def _podman_host() -> str:
    """Where podman's own socket units put its service: the system's as root, else the user's."""
    if os.geteuid() == 0:
        return "unix:///run/podman/podman.sock"
    runtime = os.environ.get("XDG_RUNTIME_DIR", "").strip() or f"/run/user/{os.getuid()}"
    return f"unix://{runtime}/podman/podman.sock"


def _daemonless_root() -> Path:
    if os.geteuid() == 0 and _host_root():
        return Path("/var/lib/evaluator/daemonless")
    return cache_home() / "evaluator" / "daemonless"


def _host_root() -> bool:
    """Root of the host's own user namespace, not of a user namespace the harness made."""
    try:
        return Path("/proc/self/uid_map").read_text().split() == ["0", "0", "4294967295"]
    except OSError:
        return True


def _doit() -> tuple[str, ...]:
    return (sys.executable, "-m", "doit", "-f", str(_CHECKOUT / "dodo.py"))


def _executor(raw: str) -> bool:
    return raw == "local" or raw.startswith("ray://") or (raw.startswith("ray:") and len(raw) > 4)


def _remote(raw: str) -> str:
    # The rule `evaluator.remote` parses with (an S3 bucket name, prefix parts neither empty nor
    # dots), checked here too so that `config` and every command refuse what a run would.
    m = re.fullmatch(r"s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(/.*)?", raw)
    prefix = (m.group(2) or "").strip("/") if m else ""
    if m is None or (prefix and any(p in ("", ".", "..") for p in prefix.split("/"))):
        raise ValueError(raw)
    return raw


def _docker_host(raw: str) -> str:
    # The Docker SDK's own parser, so what passes here is what the SDK connects to; imported
    # only when the variable is set (the SDK is slow to import).
    from docker.utils.utils import parse_host

    try:
        parse_host(raw, False, False)
    except Exception as exc:  # DockerException, or ValueError for a bad port
        raise ValueError(raw) from exc
    return raw


def _yaml_file(raw: str) -> Path:
    # Parsed here too, so a config that is not YAML is refused by every command in one line
    # (its fields are checked where it is read).
    import yaml

    path = PATH.parse(raw)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ValueError(raw) from exc
    if data is not None and not isinstance(data, dict):
        raise ValueError(raw)
    return path


_REMOTE: Kind[str] = Kind("s3://bucket or s3://bucket/prefix (a valid S3 bucket name)", _remote)


class Settings:
    """The settings in force: `settings.store`, `settings.sandboxes`, ... (see `_setting`).

    `environ` is the mapping read (the live `os.environ` by default); `given` holds values from
    the command line, by attribute name, which win over it."""

    # --- paths
    store: Setting[Path] = Setting(
        "EVAL_STORE", PATH, Path(".eval"), "the store: blobs, records, errors, index",
        group="paths", flag="--store")
    tasks_root: Setting[Path] = Setting(
        "EVAL_TASKS", PATH, Path("tasks"), "task sets, one folder each (<set>/set.yaml)",
        group="paths", flag="--tasks")
    lock_dir: Setting[Path] = Setting(
        "EVAL_LOCK_DIR", PATH, Path("lock"), "lock files (<set>.lock)",
        group="paths", flag="--lock-dir")
    evals_root: Setting[Path] = Setting(
        "EVAL_EVALS", PATH, Path("evals"), "eval configs (<set>.yaml): which agents run on a set",
        group="paths", flag="--evals")
    agents_root: Setting[Path] = Setting(
        "EVAL_AGENTS", PATH, Path("agents"), "agent folders (<name>/agent.yaml)",
        group="paths", flag="--agents")
    reports_root: Setting[Path] = Setting(
        "EVAL_REPORTS", PATH, Path("reports/out"), "where rendered reports go (<set>/)",
        group="paths", flag="--reports")
    # --- execution
    sandboxes: Setting[int] = Setting(
        "EVAL_SANDBOXES", whole(1), 4, "sandboxes at once on this machine for gold grades and "
        "predictions (an eval's own bound is its concurrency.sandboxes)", group="execution")
    sandbox_backend: Setting[str] = Setting(
        "EVAL_SANDBOX_BACKEND", choice("docker", "podman", "daemonless"), "docker", "what opens "
        "sandboxes: the Docker engine (DOCKER_HOST), podman's service (EVAL_PODMAN_HOST), or "
        "bubblewrap with no daemon at all (daemonless); recorded in every attempt and grade "
        "record, in no key (evaluator/sandbox/_backends.py)", group="execution")
    podman_host: Setting[str] = Setting(
        "EVAL_PODMAN_HOST", matching("unix:///PATH or tcp://HOST:PORT",
                                     lambda raw: raw.startswith(("unix:///", "tcp://"))),
        _podman_host, "podman's Docker-compatible service (`podman system service`), for the "
        "podman backend", group="execution", default_doc="unix:///run/podman/podman.sock as "
        "root, else unix://$XDG_RUNTIME_DIR/podman/podman.sock")
    daemonless_root: Setting[Path] = Setting(
        "EVAL_DAEMONLESS_ROOT", PATH, lambda: _daemonless_root(), "the daemonless backend's "
        "images (by digest) and open sandboxes' folders (evaluator/sandbox/daemonless/_sandboxes.py)",
        group="execution", default_doc="/var/lib/evaluator/daemonless as the host's root, else "
        "$XDG_CACHE_HOME/evaluator/daemonless")
    in_userns: Setting[str | None] = Setting(
        "EVAL_USERNS", choice("1"), None, "set by the harness itself in the user namespace it "
        "runs in without root (daemonless backend), so it never enters another; not to be set "
        "by hand (evaluator/sandbox/daemonless/_userns.py)", group="execution")
    daemonless_limits: Setting[str | None] = Setting(
        "EVAL_DAEMONLESS_LIMITS", choice("cgroup", "rlimit"), None, "how the daemonless "
        "backend caps CPU, memory and processes (evaluator/sandbox/daemonless/_cgroups.py); forced when set",
        group="execution", default_doc="a cgroup where the host lets the harness make one, "
        "else rlimits")
    sandbox_disk: Setting[str | None] = Setting(
        "EVAL_SANDBOX_DISK", choice("overlay", "engine", "watch", "tmpfs"), None,
        "how a sandbox's disk is capped (evaluator/sandbox/docker/_disk.py); forced when set",
        group="execution", default_doc="chosen per engine, overlay where it can")
    executor: Setting[str] = Setting(
        "EVAL_EXECUTOR", matching("local, ray://HOST:PORT (Ray Client), ray:HOST:PORT (the GCS "
                                  "address) or ray:auto", _executor),
        "local", "where sandbox work runs: this machine's engine or a Ray cluster",
        group="execution")
    warm_pool: Setting[int | None] = Setting(
        "EVAL_WARM_POOL", whole(0), None, "warm sandboxes per node (this machine, locally), "
        "for queued work only; 0: none", group="execution", default_doc="2 on Ray, 0 locally")
    warm_max_idle_s: Setting[float] = Setting(
        "EVAL_WARM_MAX_IDLE_S", number(0), 30.0, "a warm sandbox unused this long is closed",
        group="execution")
    lock_jobs: Setting[int] = Setting(
        "EVAL_LOCK_JOBS", whole(1), lambda: min(8, 2 * (os.cpu_count() or 1)), "containers "
        "`doit lock` runs at once to resolve base commits and read images' repositories; each "
        "distinct (image, commit) is read once, however many tasks share it", group="execution",
        default_doc="twice the CPUs, at most 8")
    ray_pulls: Setting[int] = Setting(
        "EVAL_RAY_PULLS", whole(1), 2, "image pulls or loads at once per Ray node",
        group="execution")
    ray_tries: Setting[int] = Setting(
        "EVAL_RAY_TRIES", whole(1), 3, "Ray nodes an attempt may be handed to when its node is "
        "lost", group="execution")
    # --- remote
    remote: Setting[str | None] = Setting(
        "EVAL_REMOTE", _REMOTE, None, "the team cache the local store fronts",
        group="remote", default_doc="unset: the local store alone")
    remote_mode: Setting[str] = Setting(
        "EVAL_REMOTE_MODE", choice("read", "readwrite"), "readwrite",
        "read: never send a write to the remote", group="remote")
    remote_endpoint: Setting[str | None] = Setting(
        "EVAL_REMOTE_ENDPOINT", matching("an http(s) URL, e.g. http://127.0.0.1:9000",
                                         lambda raw: bool(re.match(r"^https?://[^/\s]+", raw))),
        None, "the S3 endpoint (MinIO, moto)", group="remote",
        default_doc="botocore's AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else AWS S3")
    # --- api
    api_token: Setting[str | None] = Setting(
        "EVAL_API_TOKEN", TEXT, None, "bearer token the API requires (serve --token wins; "
        "needed to bind beyond loopback)", group="api", default_doc="unset: no token",
        secret=True)
    api_doit: Setting[tuple[str, ...]] = Setting(
        "EVAL_API_DOIT", command(), _doit, "the doit command an API run's worker runs",
        group="api", default_doc="this interpreter -m doit -f <checkout>/dodo.py")
    api_max_body: Setting[int] = Setting(
        "EVAL_API_MAX_BODY", whole(1), 65536, "bytes of a request body the API reads at most; "
        "a longer one (by Content-Length, or as it arrives chunked) gets 413 before it is read",
        group="api")
    # --- runs
    samples: Setting[int | None] = Setting(
        "EVAL_SAMPLES", whole(1, 100), None, "samples per agent and task, instead of the eval "
        "config's (an API run sets it)", group="runs", default_doc="the eval config's")
    only_agents: Setting[tuple[str, ...]] = Setting(
        "EVAL_ONLY_AGENTS", names(), (), "plan only these agents of the eval config (an API run "
        "sets it)", group="runs", default_doc="every agent of the eval config")
    isolation: Setting[str | None] = Setting(
        "EVAL_ISOLATION", choice("namespace", "process"), None, "the least isolation of agents' "
        "own processes, instead of the eval config's `isolation:` (an API run sets it)",
        group="runs", default_doc="the eval config's, else the strongest this machine supports")
    exploit_tasks: Setting[tuple[str, ...]] = Setting(
        "EVAL_EXPLOIT_TASKS", names(), (), "tasks the gold gate's exploit families run on beside "
        "the set's sample (`exploit_sample` in set.yaml), by id (<set>/<task> where several sets "
        "run), or `all`; what they find is kept, and every later run counts them as checked",
        group="runs", default_doc="none: the sample alone")
    decision: Setting[str] = Setting(
        "EVAL_DECISION", choice("fixed", "sequential"), "fixed", "how `doit report` decides a "
        "comparison: the fixed-sample test or the always-valid sequential one", group="runs")
    store_min_free_mb: Setting[int] = Setting(
        "EVAL_STORE_MIN_FREE_MB", whole(0), 64, "megabytes the store's disk must have free "
        "before an attempt starts (its trajectory, patch and records land there; a full disk "
        "would lose what the model was paid for); 0: no check", group="runs")
    simulated_config: Setting[Path | None] = Setting(
        "EVAL_SIMULATED_CONFIG", Kind("the path of an existing YAML file (a mapping)", _yaml_file), None,
        "YAML config of the simulated model endpoint", group="runs",
        default_doc="evaluator/simulated/default.yaml")
    # --- images
    deb_cache: Setting[Path] = Setting(
        "EVAL_DEB_CACHE", PATH, _deb_cache, "downloaded Debian packages, by sha256",
        group="images", default_doc="$XDG_CACHE_HOME/evaluator/debs (~/.cache by default)")
    debian_mirror: Setting[str | None] = Setting(
        "EVAL_DEBIAN_MIRROR", TEXT, None, "the Debian mirror the base image's packages come "
        "from (any that serves the pinned files)", group="images",
        default_doc="the mirror apt is configured with")
    base_lock: Setting[Path] = Setting(
        "EVAL_BASE_LOCK", PATH, lambda: _CHECKOUT / "lock" / "base.lock", "the base image's "
        "package pins", group="images", default_doc="lock/base.lock of this checkout")
    # --- internal
    simulated_url: Setting[str | None] = Setting(
        "EVAL_SIMULATED_URL", TEXT, None, "the simulated endpoint a doit run started, for its "
        "forked workers", group="internal")
    invocation: Setting[str | None] = Setting(
        "EVAL_INVOCATION", TEXT, None, "the doit invocation whose workers share a budget and "
        "queue marks", group="internal", default_doc="the pid of the doit process")
    # --- external
    docker_host: Setting[str | None] = Setting(
        "DOCKER_HOST", Kind("unix:///PATH, tcp://HOST:PORT, ssh://[USER@]HOST or "
                            "npipe://PATH (what the Docker SDK takes)", _docker_host), None,
        "the Docker engine (read by the Docker SDK)", group="external", default_doc="unix:///var/run/docker.sock")
    mlflow_tracking_uri: Setting[str | None] = Setting(
        "MLFLOW_TRACKING_URI", TEXT, None, "default of `export mlflow --tracking-uri`",
        group="external", default_doc="unset")

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = environ
        self._given: dict[str, str] = {}

    def problems(self) -> list[str]:
        """One line per setting whose value in force is not one it takes (empty: all good).
        Every command checks this first, so a bad value is refused before anything runs
        rather than deep inside a target."""
        out = []
        for s in self.declared():
            try:
                getattr(self, s.attr)
            except SettingError as exc:
                out.append(str(exc))
        return out

    @classmethod
    def declared(cls) -> list[Setting[Any]]:
        """Every setting, in declaration order."""
        return [v for v in vars(cls).values() if isinstance(v, Setting)]

    @classmethod
    def named(cls, name: str) -> Setting[Any]:
        """The setting of attribute or variable `name`."""
        for s in cls.declared():
            if name in (s.attr, s.env):
                return s
        raise KeyError(name)

    def raw(self, setting: Setting[Any]) -> tuple[str | None, Source]:
        """The text in force for `setting` and where it came from (None: the default)."""
        if setting.attr in self._given:
            return self._given[setting.attr], "command line"
        env = os.environ if self._environ is None else self._environ
        value = env.get(setting.env, "")
        return (value, "environment") if value.strip() else (None, "default")

    def source(self, name: str) -> Source:
        return self.raw(self.named(name))[1]

    @contextmanager
    def given(self, **values: str | os.PathLike[str] | None) -> Iterator[None]:
        """Command-line values (by attribute; None: not given) win over the environment inside
        the block. Each is checked now, so a bad one fails before anything runs."""
        before = dict(self._given)
        for attr, value in values.items():
            if value is not None:
                s = self.named(attr)
                s.parse(os.fspath(value), where=s.flag or attr)
                self._given[attr] = os.fspath(value)
        try:
            yield
        finally:
            self._given = before


settings = Settings()
