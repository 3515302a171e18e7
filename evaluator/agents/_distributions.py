"""Which installed distributions an agent's code can import: its closure, not every installed one.

The walk starts from the modules the agent's own code imports that live in site-packages (found
by `_closure`, read, never imported). Each such module belongs to the distribution whose RECORD
lists its file; from there the closure follows each distribution's declared requirements
(`Requires-Dist`, with their environment markers and the extras a requirement asks for), as
pip installed them. So an agent importing httpx holds httpx, httpcore, h11, anyio, idna,
certifi, ...; a distribution that nothing of that graph requires is not in it, and installing,
upgrading or removing it changes no identity.

Code that runs in the agent's process whatever it imports is held too: the executable lines of
`.pth` files in the interpreter's site folders (and the distribution that installed each) and a
`sitecustomize` module. A module in site-packages that no distribution owns is held by its
bytes. What the walk does not follow are a library's optional imports of packages it does not
declare (`try: import brotli`, httpx importing rich for its command line when it is there):
they are left out, as pip's graph leaves them out.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re
import site
import sysconfig
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evaluator.hashing import hash_bytes, hash_file


def normalize(name: str) -> str:
    """A distribution name as PEP 503 compares them (`Python_Dateutil` is `python-dateutil`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class _Dist:
    name: str  # normalised
    version: str
    requires: tuple[str, ...]


@dataclass(frozen=True)
class _Installed:
    """The distributions along one path: by name, and which owns each file."""

    by_name: dict[str, _Dist]
    owner: dict[str, str]  # real path of a file -> normalised distribution name


def owners(search_path: Sequence[str]) -> Mapping[str, str]:
    """Real path of each importable file an installed distribution along `search_path` owns
    -> that distribution's name: the files that are no agent's own code, wherever they lie
    (site-packages, a `pip install --target` folder on PYTHONPATH)."""
    return _installed(_stamped(search_path)).owner


def versions(search_path: Sequence[str]) -> dict[str, str]:
    """Normalised name -> version of every distribution along `search_path`."""
    return {name: d.version for name, d in _installed(_stamped(search_path)).by_name.items()}


def closure(external: Mapping[str, Path], search_path: Sequence[str]) -> dict[str, list[list[str]]]:
    """The environment an agent with these directly imported external modules runs with:
    `distributions` [[name, version]], `startup` [[file, hash]] and `unowned` [[module, hash]]."""
    installed = _installed(_stamped(search_path))
    roots: list[tuple[str, frozenset[str]]] = []
    unowned: list[list[str]] = []
    for module, origin in sorted(external.items()):
        owner = installed.owner.get(os.path.realpath(origin))
        if owner is None:
            unowned.append([module, hash_file(origin)])
        else:
            roots.append((owner, frozenset()))
    startup = []
    for file, text, owner in _startup_code(installed):
        startup.append([file, hash_bytes(text.encode())])
        if owner is not None:
            roots.append((owner, frozenset()))
    dists = _requirement_closure(roots, installed.by_name)
    return {"distributions": [[d.name, d.version] for d in sorted(dists, key=lambda d: d.name)],
            "startup": startup, "unowned": unowned}


def _requirement_closure(roots: Iterable[tuple[str, frozenset[str]]],
                         by_name: Mapping[str, _Dist]) -> set[_Dist]:
    # Imported here: every agent process imports this package, and only planning needs it.
    from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName
    from packaging.requirements import InvalidRequirement, Requirement

    todo, done, found = list(roots), set(), set()
    while todo:
        name, extras = todo.pop()
        if (name, extras) in done or name not in by_name:
            continue  # not installed: an unmet marker, an optional extra, or a broken install
        done.add((name, extras))
        dist = by_name[name]
        found.add(dist)
        for text in dist.requires:
            try:
                req = Requirement(text)
                if req.marker is not None and not any(
                        req.marker.evaluate({"extra": extra}) for extra in ("", *extras)):
                    continue
            except (InvalidRequirement, InvalidMarker, UndefinedComparison,
                    UndefinedEnvironmentName):
                continue  # metadata pip would not have acted on either
            todo.append((normalize(req.name), frozenset(normalize(e) for e in req.extras)))
    return found


@functools.lru_cache(maxsize=16)
def _installed(stamped: tuple[tuple[str, int], ...]) -> _Installed:
    # Keyed by each folder's mtime: installing or removing a distribution adds or removes a
    # folder there, so a long-running process (the API server) sees the change.
    by_name: dict[str, _Dist] = {}
    owner: dict[str, str] = {}
    for dist in importlib.metadata.distributions(path=[p for p, _ in stamped]):
        meta = dist.metadata  # parsed anew on every access
        raw = meta["Name"]
        if not raw:
            continue
        name = normalize(raw)
        if name in by_name:
            continue  # the first on the path wins, as it does for `import`
        by_name[name] = _Dist(name, meta["Version"], tuple(meta.get_all("Requires-Dist") or ()))
        base = _base(dist)
        if base is not None:
            for rel in _recorded(dist):
                owner.setdefault(os.path.normpath(f"{base}/{rel}") if ".." in rel
                                 else f"{base}/{rel}", name)
    return _Installed(by_name, owner)


def _recorded(dist: importlib.metadata.Distribution) -> list[str]:
    """The importable files and `.pth` files a distribution's RECORD lists (read as text: the
    metadata API's path objects cost seconds over a few hundred distributions)."""
    text = dist.read_text("RECORD") or ""
    out = []
    for line in text.splitlines():
        rel = line.rsplit(",", 2)[0].strip('"')  # path[,hash,size]: a path may hold commas
        if rel.endswith((".py", ".so", ".pth")) and "__pycache__" not in rel:
            out.append(rel)
    return out


def _base(dist: importlib.metadata.Distribution) -> str | None:
    """The real folder a distribution's RECORD paths are relative to (its dist-info's parent)."""
    located = dist.locate_file("")
    return os.path.realpath(str(located)) if located is not None else None


def _startup_code(installed: _Installed) -> list[tuple[str, str, str | None]]:
    """(file, code, owning distribution) of what runs at every start of the interpreter: the
    `import` lines of `.pth` files (their path lines only extend sys.path, and name folders of
    this machine) and `sitecustomize`."""
    out = []
    for folder in sorted(site_folders()):
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".pth"))
        except OSError:
            continue
        for name in names:
            path = os.path.join(os.path.realpath(folder), name)
            try:
                lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            code = "\n".join(line for line in lines if line.startswith(("import ", "import\t")))
            if code:
                out.append((name, code, installed.owner.get(path)))
        custom = os.path.join(folder, "sitecustomize.py")
        if os.path.isfile(custom):
            out.append(("sitecustomize.py", Path(custom).read_text(errors="replace"),
                        installed.owner.get(os.path.realpath(custom))))
    return out


@functools.cache
def site_folders() -> tuple[str, ...]:
    """The interpreter's site-packages folders, where `.pth` files run."""
    paths = sysconfig.get_paths()
    return tuple(sorted({*site.getsitepackages(), site.getusersitepackages(),
                         *(paths[k] for k in ("purelib", "platlib") if k in paths)}))


def _stamped(search_path: Sequence[str]) -> tuple[tuple[str, int], ...]:
    """The entries of `search_path` that hold distributions, with their mtimes: an agent's own
    folder (first on its path) holds none, so every agent of an eval shares one scan of the
    installed distributions instead of one each (seconds apiece over a few hundred)."""
    return tuple((p, _mtime(p)) for p in search_path if _holds_distributions(p))


def _holds_distributions(path: str) -> bool:
    try:
        names = os.listdir(path or os.curdir)
    except NotADirectoryError:
        return True  # a zip or an egg on the path: importlib.metadata looks inside
    except OSError:
        return False
    return any(n.endswith((".dist-info", ".egg-info", ".egg-link")) for n in names)


def _mtime(path: str) -> int:
    try:
        return os.stat(path or os.curdir).st_mtime_ns
    except OSError:
        return 0


__all__ = ["closure", "normalize", "owners", "site_folders", "versions"]
