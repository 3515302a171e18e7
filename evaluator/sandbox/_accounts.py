"""Resolving a Docker `user` string to numbers and a home directory, from the texts of an image's
own /etc/passwd and /etc/group (each backend reads them its own way)."""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.errors import BadInputError


@dataclass(frozen=True)
class Account:
    uid: int
    gid: int
    home: str | None
    has_workdir: bool = True  # whether the image has the workdir folder at all


def account_of(passwd: str, group: str, user: str, image_id: str,
               has_workdir: bool = True) -> Account:
    """`user` resolved against the texts of an image's /etc/passwd and /etc/group."""
    users = _table(passwd)
    name, _, group_name = user.partition(":")
    entry = next((e for e in users if e[0] == name or e[2] == name), None)
    if name.isdigit():
        uid = int(name)
    elif entry is not None:
        uid = int(entry[2])
    else:
        raise BadInputError(f"user {user!r} does not exist in image {image_id}; use `uid:gid`")
    if entry is None:
        entry = next((e for e in users if e[2] == str(uid)), None)
    if group_name.isdigit():
        gid = int(group_name)
    elif group_name:
        found = next((g for g in _table(group) if g[0] == group_name), None)
        if found is None:
            raise BadInputError(f"group {group_name!r} does not exist in image {image_id}")
        gid = int(found[2])
    else:
        # Docker's own rule: the passwd entry's group, else root's.
        gid = int(entry[3]) if entry is not None else 0
    home = entry[5] if entry is not None and len(entry) > 5 and entry[5].startswith("/") else None
    return Account(uid, gid, home, has_workdir)


def _table(text: str) -> list[list[str]]:
    rows = [line.split(":") for line in text.splitlines() if line and not line.startswith("#")]
    return [row for row in rows if len(row) >= 4 and row[2].isdigit()]
