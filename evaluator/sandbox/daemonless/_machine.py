"""A daemonless sandbox as `ExecSandbox` sees it (its `Machine`): each command one exec of
bubblewrap over the sandbox's folders (`_bwrap`), as the user it names (resolved from the image's
own /etc/passwd and /etc/group); killing it stops the exec that runs and lets no other start;
removing it removes its folders, view, cgroup and user namespace.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable

from evaluator.console import say
from evaluator.sandbox._accounts import account_of
from evaluator.sandbox._layers import used_bytes
from evaluator.sandbox._stream import RawExec
from evaluator.sandbox.daemonless import _bwrap as bw
from evaluator.sandbox.daemonless import _cgroups as cg


class BwrapMachine:
    """Sandbox `sid`: its `layout`, its cgroup (None under rlimits), and the texts of its image's
    /etc/passwd and /etc/group (with the image's id, for errors)."""

    def __init__(self, sid: str, layout: bw.Layout, cgroup: cg.Cgroup | None,
                 accounts: tuple[str, str, str]) -> None:
        self.id = sid
        self.short_id = sid.removeprefix("evaluator-")[:12]
        self.layout = layout
        self._cgroup = cgroup
        self._accounts = accounts
        self._who: dict[str, bw.Who] = {}

    def run(self, argv: list[str], *, deadline: float, limit: int, user: str, workdir: str,
            env: dict[str, str] | None, stdin: Iterable[bytes] | None) -> RawExec:
        return bw.run(self.layout, self._resolve(user), argv, deadline=deadline, limit=limit,
                      workdir=workdir, env=env, stdin=stdin)

    def _resolve(self, user: str) -> bw.Who:
        if user not in self._who:
            account = account_of(*self._accounts[:2], user, self._accounts[2])
            self._who[user] = bw.Who(account.uid, account.gid, account.home or "/")
        return self._who[user]

    def written(self) -> int:
        """What the sandbox holds on the host's disk (what its disk cap counts)."""
        return sum(used_bytes(str(p)) for p in self.layout.writable())

    def kill(self) -> None:
        bw.stop(self.layout)
        if self._cgroup is not None:
            self._cgroup.kill()

    def remove(self) -> None:
        """Kill what runs and remove the folders, cgroup and user namespace."""
        self.kill()
        layout = self.layout
        if layout.userns >= 0:
            fd, layout.userns = layout.userns, -1
            os.close(fd)
        try:
            if self._cgroup is not None:
                self._cgroup.remove()
            with contextlib.suppress(FileNotFoundError):
                layout.view.rmdir()
            shutil.rmtree(layout.scratch)
        except OSError as e:
            say(f"evaluator: could not remove sandbox {self.id} (the next run's leftover "
                f"cleanup will): {e}", err=True)
