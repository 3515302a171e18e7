"""The daemonless backend without root: the harness itself runs in a user namespace of its own
that maps the user's subordinate ids (/etc/subuid, /etc/subgid), as rootless podman and buildah
do, and there it has what the backend needs (docs/daemonless.md, "Without root").

The namespace maps the user's own uid to 0 and the first subordinate range to 1..N (util-linux
`unshare --map-users`, which asks the setuid `newuidmap`): the image's files keep their owners
inside (uid 1000 of an image is the subordinate id start+999 on the host), every step of an exec
(its mount namespace, the overlays with `userxattr`, `setpriv`, the sandbox's own user namespace
and its maps) is allowed to the namespace's root, and the map is the same in every run, so the
store's files mean the same owners every time. Nothing in it is the host's root: a file no id of
the map owns reads as `nobody`, a cgroup of the host is not writable (rlimits cap instead), and
RLIMIT_NPROC counts the sandbox user's processes without root's exemption.

`enter` re-executes the running program (its interpreter and arguments, the environment as it
is) in that namespace, once; `command` prefixes any command line with it (`evaluator userns --
CMD`, for a Ray node or a notebook server).
"""

from __future__ import annotations

import os
import pwd
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from evaluator.console import say
from evaluator.errors import EvalError, InfraError
from evaluator.settings import settings

MARK = "EVAL_USERNS"  # settings.in_userns: set in the namespace's environment, so `enter` never nests
_FULL = ("0", "0", "4294967295")
# Every image's usual owners (root, users from 1000, nobody at 65534) must be in the map.
_MIN_IDS = 65536


def initial() -> bool:
    """Whether this process is in the host's own user namespace (every id mapped to itself)."""
    try:
        lines = Path("/proc/self/uid_map").read_text().split("\n")
    except OSError:
        return True
    rows = [line.split() for line in lines if line.strip()]
    return rows == [list(_FULL)]


def privileged() -> bool:
    """Root of the host: what the daemonless backend's own layout (trusted xattrs) needs."""
    return os.geteuid() == 0 and initial()


def identity(kind: str) -> str:
    """`kind` ("uid_map" or "gid_map") of a namespace below this one that maps every id this
    one has to itself: the host's full range as root, the subordinate map in ours."""
    rows = [line.split() for line in Path(f"/proc/self/{kind}").read_text().splitlines()
            if line.strip()]
    return "".join(f"{inside} {inside} {count}\n" for inside, _outside, count in rows)


def describe() -> str:
    """This user namespace's uid map, as a record's `backend.detail` says it."""
    rows = [line.split() for line in Path("/proc/self/uid_map").read_text().splitlines()
            if line.strip()]
    parts = [f"{a} -> {b}" if c == "1" else f"{a}-{int(a) + int(c) - 1} -> {b}-"
             f"{int(b) + int(c) - 1}" for a, b, c in rows]
    return "user namespace (uids " + ", ".join(parts) + ")"


def overlay_xattrs() -> tuple[str, str]:
    """The opaque folder's xattr and the overlay mount option this namespace can use."""
    if initial():
        return "trusted.overlay.opaque", ""
    return "user.overlay.opaque", "userxattr,"


@dataclass(frozen=True)
class Ranges:
    """A user's first subordinate uid and gid ranges."""

    user: str
    uid: int
    uids: tuple[int, int]  # (start, count)
    gids: tuple[int, int]

    def describe(self) -> str:
        (u, n), (g, m) = self.uids, self.gids
        return (f"user namespace of uid {self.uid}: uids 1-{n} -> {u}-{u + n - 1}, "
                f"gids 1-{m} -> {g}-{g + m - 1}")


def ranges(uid: int | None = None) -> Ranges:
    """The subordinate ids /etc/subuid and /etc/subgid give `uid` (default: this process's)."""
    uid = os.getuid() if uid is None else uid
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = str(uid)
    found = [_first(Path(f"/etc/{f}"), name, uid) for f in ("subuid", "subgid")]
    if found[0] is None or found[1] is None:
        raise InfraError(
            f"the daemonless backend without root needs subordinate ids for user {name} "
            f"(uid {uid}) of at least {_MIN_IDS} in /etc/subuid and /etc/subgid, to keep the "
            f"images' owners: ask an administrator for them (`usermod --add-subuids "
            f"100000-165535 --add-subgids 100000-165535 {name}`), or run the harness as root, or "
            "use rootless podman (EVAL_SANDBOX_BACKEND=podman): docs/daemonless.md, "
            "\"Without root\"")
    return Ranges(name, uid, found[0], found[1])


def command(argv: list[str], uid: int | None = None) -> list[str]:
    """`argv` run as root of this user's namespace (see the module's doc)."""
    if shutil.which("unshare") is None or shutil.which("newuidmap") is None:
        raise InfraError("the daemonless backend without root needs util-linux's unshare and "
                         "the setuid newuidmap and newgidmap (apt-get install util-linux uidmap)")
    r = ranges(uid)
    return ["unshare", "--user", "--map-root-user",
            f"--map-users={r.uids[0]},1,{r.uids[1]}", f"--map-groups={r.gids[0]},1,{r.gids[1]}",
            "--", *argv]


def enter(why: str) -> None:
    """Re-execute this program as root of the user's namespace, unless it is root already or
    runs in it (`why`: what needs it, said on stderr); never returns when it re-executes."""
    if os.geteuid() == 0 or settings.in_userns:
        return
    argv = command([sys.executable, *sys.orig_argv[1:]])
    say(f"evaluator: {why} without root: running again in a {ranges().describe()}", err=True)
    sys.stdout.flush()
    os.execvpe(argv[0], argv, {**os.environ, MARK: "1"})


def refusal() -> str:
    """What a harness that is not root (in any namespace) is told."""
    try:
        r = ranges()
    except InfraError as e:
        return str(e)
    return (f"the daemonless backend needs root, or the user namespace the harness makes with "
            f"{r.user}'s subordinate ids: `evaluator` and `doit` enter it by themselves; run "
            f"anything else under `evaluator userns -- COMMAND` (a Ray node, a notebook "
            "server): docs/daemonless.md, \"Without root\"")


def _first(path: Path, name: str, uid: int) -> tuple[int, int] | None:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.strip().split(":")
        if len(parts) != 3 or parts[0] not in (name, str(uid)):
            continue
        try:
            start, count = int(parts[1]), int(parts[2])
        except ValueError:
            continue
        if count >= _MIN_IDS:
            return start, count
    return None


def enter_user_namespace(why: str) -> None:
    """Without root and with the daemonless backend set, run this program again in the
    harness's user namespace (this module); anything else goes on as it is."""
    if settings.sandbox_backend != "daemonless" or os.geteuid() == 0:
        return
    try:
        ranges()
    except EvalError:
        return  # the backend refuses, naming what is missing, when a sandbox is opened
    enter(why)
