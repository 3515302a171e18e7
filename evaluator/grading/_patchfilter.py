"""Split a patch into its per-file sections and leave out those that touch protected paths or
carry what no reviewer can read.

Grading starts from the image's own tree (the one the agent saw, ignored and untracked files
included) and applies only the sections of the patch that do not touch tests, test
configuration, import hooks or hidden-test paths; so nothing has to be put back afterwards, and
files that `git clean -x` would have removed stay. Sections no reviewer (and no policy check)
can read are left out too, and named with why (`Filtered.opaque`): bytecode, compiled modules,
importable archives, symlinks, submodules, binary files, and Python source whose PEP 263
`coding:` cookie names a codec other than UTF-8 or ASCII (`unicode_escape` turns a comment into
code). A deleted file is never opaque: its going is readable. The split is checked against what
git itself reads from the filtered patch (`git apply --numstat` and `--summary`), so a section
this parser misses cannot slip a protected path or an opaque file through. git reads it on the
harness's side, where nothing of the patch can run or answer for it.
"""

from __future__ import annotations

import codecs
import io
import json
import re
import subprocess
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from evaluator.errors import InfraError
from evaluator.grading._paths import patch_paths
from evaluator.sandbox import Sandbox

BYTECODE = "bytecode"
COMPILED = "compiled module"
ARCHIVE = "importable archive"
SYMLINK = "symlink"
SUBMODULE = "submodule"
BINARY = "binary file"

# importlib.machinery.EXTENSION_SUFFIXES on every platform end in one of these; `.dylib`/`.dll`
# and versioned `.so.N` load through ctypes or the dynamic loader; zips import via zipimport.
_COMPILED = re.compile(r"\.(?:so(?:\.\d+)*|pyd|dylib|dll|sl)$", re.IGNORECASE)
_BYTECODE = re.compile(r"\.py[co]$", re.IGNORECASE)
_ARCHIVE = re.compile(r"\.(?:zip|pyz|pyzw|whl|egg)$", re.IGNORECASE)
_SOURCE = re.compile(r"\.pyw?$", re.IGNORECASE)
# PEP 263, as CPython's tokenizer reads it (any `coding[:=]` in a comment on line 1 or 2).
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_READABLE = {"utf-8", "ascii"}
# Characters that make text read differently than it runs (CVE-2021-42574's bidirectional
# controls) or not at all (zero-width ones), in what a patch adds to Python source.
_HIDDEN = re.compile("[\u202a-\u202e\u2066-\u2069\u200b\u200e\u200f\u2060\u061c]|(?<!^)\ufeff")
HIDDEN_TEXT = "invisible or bidirectional characters"
_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_READ_FILES, _READ_BYTES = 200, 16_000_000  # past these the policy reads the hunks alone


@dataclass(frozen=True)
class Filtered:
    patch: bytes  # what is applied
    protected: list[str] = field(default_factory=list)  # tests, test config, import hooks
    opaque: list[tuple[str, str]] = field(default_factory=list)  # (path, why it is unreadable)


def sections(patch: bytes) -> list[bytes]:
    """The patch cut before each file header (`diff --git`, or `---` then `+++` in a plain diff)."""
    lines = patch.splitlines(keepends=True)
    cuts = [0]
    in_git_section = False
    for i, line in enumerate(lines):
        if line.startswith(b"diff --git "):
            in_git_section = True
            cuts.append(i)
        elif (not in_git_section and line.startswith(b"--- ") and i + 1 < len(lines)
              and lines[i + 1].startswith(b"+++ ")):
            cuts.append(i)
    cuts = sorted(set(cuts))
    out = [b"".join(lines[a:b]) for a, b in zip(cuts, [*cuts[1:], len(lines)], strict=True)]
    return [s for s in out if s]


def filter_patch(patch: bytes, protected: Callable[[str], bool]) -> Filtered:
    """The patch without sections naming a protected path or carrying an opaque file."""
    kept: list[bytes] = []
    dropped: set[str] = set()
    opaque: list[tuple[str, str]] = []
    for section in sections(patch):
        paths = patch_paths(section)
        hit = [p for p in paths if protected(p)]
        why = opaque_reason(section, paths)
        if hit:
            dropped.update(hit)
        elif why:
            opaque.append((paths[-1] if paths else "?", why))
        else:
            kept.append(section)
    return Filtered(b"".join(kept), sorted(dropped), sorted(set(opaque)))


def opaque_reason(section: bytes, paths: list[str] | None = None) -> str:
    """Why a reviewer cannot read what this section adds, or "" when they can."""
    head = [ln for ln in section.splitlines()[:12] if not ln.startswith((b"+", b"-", b" ", b"@"))]
    if any(ln.startswith(b"deleted file mode") for ln in head):
        return ""
    if any(ln.startswith((b"new file mode 120000", b"new mode 120000")) for ln in head):
        return SYMLINK
    if any(ln.startswith((b"new file mode 160000", b"new mode 160000")) for ln in head) or \
            re.search(rb"^\+Subproject commit ", section, re.MULTILINE):
        return SUBMODULE
    for path in paths if paths is not None else patch_paths(section):
        why = name_reason(path)
        if why:
            return why
    if re.search(rb"^(?:GIT binary patch|Binary files .* differ)$", section, re.MULTILINE):
        return BINARY
    if any(_SOURCE.search(p) for p in (paths if paths is not None else patch_paths(section))):
        added = [ln[1:].decode("utf-8", "replace") for ln in section.splitlines()
                 if ln.startswith(b"+") and not ln.startswith(b"+++ ")]
        if any(_HIDDEN.search(ln) for ln in added):
            return HIDDEN_TEXT
        return cookie_reason(_first_added_lines(section))
    return ""


def name_reason(path: str) -> str:
    """Why a file of this name is opaque whatever it holds: Python may load it as code."""
    p = PurePosixPath(path)
    if "__pycache__" in p.parts or _BYTECODE.search(p.name):
        return BYTECODE
    if _COMPILED.search(p.name):
        return COMPILED
    if _ARCHIVE.search(p.name):
        return ARCHIVE
    return ""


def cookie_reason(first_lines: list[bytes]) -> str:
    """`encoding X` when line 1 or 2 declares a codec other than UTF-8 or ASCII."""
    for line in first_lines[:2]:
        m = _COOKIE.match(line.lstrip(b"\xef\xbb\xbf"))
        if m:
            name = m.group(1).decode("ascii", "replace")
            try:
                codec = codecs.lookup(name).name
            except LookupError:
                codec = name
            if codec not in _READABLE and not name.lower().replace("_", "-").startswith("utf-8"):
                return f"encoding {name}"
    return ""


def _first_added_lines(section: bytes) -> list[bytes]:
    """The lines the patch writes at lines 1 and 2 of the new file (b"" where it keeps the
    base's, which the task's author wrote)."""
    out = [b"", b""]
    line_no = 0
    for raw in section.splitlines():
        m = _HUNK.match(raw)
        if m:
            line_no = int(m.group(1)) or 1
        elif line_no and raw.startswith(b"+") and not raw.startswith(b"+++ "):
            if line_no <= 2:
                out[line_no - 1] = raw[1:]
            line_no += 1
        elif line_no and raw.startswith(b" "):
            line_no += 1
    return out


def numstat_paths(output: bytes) -> list[str]:
    """Paths from `git apply --numstat -z`: `added\\tdeleted\\tpath\\0`, or for a rename
    `added\\tdeleted\\t\\0from\\0to\\0`."""
    return [p for p, _ in numstat_entries(output)]


def numstat_entries(output: bytes) -> list[tuple[str, bool]]:
    """(path, binary) from `git apply --numstat -z` (git counts `-` lines for a binary file)."""
    out: list[tuple[str, bool]] = []
    fields = output.split(b"\0")
    i = 0
    while i < len(fields):
        entry = fields[i]
        if not entry:
            i += 1
            continue
        parts = entry.split(b"\t", 2)
        binary = parts[0] == b"-"
        if len(parts) == 3 and parts[2]:
            out.append((parts[2].decode("utf-8", "surrogateescape"), binary))
            i += 1
        else:  # a rename or copy: the two names follow as fields of their own
            out.extend((f.decode("utf-8", "surrogateescape"), binary) for f in fields[i + 1 : i + 3])
            i += 3
    return out


def _git_apply(patch: bytes, *args: str) -> bytes | None:
    try:
        r = subprocess.run(["git", "apply", *args, "-"], input=patch, capture_output=True,
                           timeout=60, cwd="/")
    except (OSError, subprocess.SubprocessError) as exc:
        raise InfraError(f"cannot run git on the harness's machine to read a patch: {exc}; "
                         "install git") from exc
    # A patch git cannot parse fails to apply in the sandbox too: that is the grade's outcome.
    return r.stdout if r.returncode == 0 else None


def git_numstat(patch: bytes) -> list[str]:
    """Every path git would touch applying `patch` (no repository needed to ask)."""
    if not patch.strip():
        return []
    out = _git_apply(patch, "--numstat", "-z")
    return numstat_paths(out) if out is not None else []


def git_opaque(patch: bytes) -> list[str]:
    """What git reads in `patch` as opaque (binary, a symlink or submodule, a bytecode or
    compiled name; deletions aside): after filtering, anything here is a section the split
    misread."""
    if not patch.strip():
        return []
    summary = (_git_apply(patch, "--summary") or b"").decode("utf-8", "surrogateescape")
    deleted = {line.split(None, 3)[-1] for line in summary.splitlines()
               if line.lstrip().startswith("delete mode ")}
    found = [f"{p} ({BINARY if binary else name_reason(p)})"
             for p, binary in numstat_entries(_git_apply(patch, "--numstat", "-z") or b"")
             if p not in deleted and (binary or name_reason(p))]
    found += [line.strip() for line in summary.splitlines()
              if re.search(r"\b1[26]0000\b", line) and not line.lstrip().startswith("delete")]
    return found


def source_list(touched: list[str]) -> bytes:
    """The Python source files among `touched`, NUL-separated, for `tar_sources` to read."""
    names = [p for p in sorted(set(touched)) if _SOURCE.search(p)][:_READ_FILES]
    return b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in names)


def tar_sources(gdir: str) -> str:
    """Shell, run in the setup exec after `git apply`: the listed files into one archive, so
    they come back in one read (a file the patch deleted is skipped)."""
    return (f"tar -cf {gdir}/sources.tar --ignore-failed-read --null -T {gdir}/sources.list "
            f"2>/dev/null || rm -f {gdir}/sources.tar; ")


def read_sources(sb: Sandbox, workdir: str, touched: list[str],
                 archive: str = "") -> tuple[dict[str, bytes], list[str]]:
    """(the new text of each Python source file the applied patch touched, those whose first
    lines declare a codec no reviewer can read): read after `git apply`, before any code of the
    patch runs, so it is the text Python will import; from `archive` (see `tar_sources`) where
    it is there, else file by file. Files past the caps are left unread."""
    wanted = [p.decode("utf-8", "surrogateescape") for p in source_list(touched).split(b"\0") if p]
    out = _from_archive(sb, archive, set(wanted)) if archive else None
    if out is None:
        out = {}
        for path in wanted:
            try:
                out[path] = sb.read_file(f"{workdir.rstrip('/')}/{path}", max_bytes=_READ_BYTES + 1)
            except FileNotFoundError:
                continue  # deleted by the patch
    kept: dict[str, bytes] = {}
    total = 0
    for path in wanted:
        if path in out and total + len(out[path]) <= _READ_BYTES:
            kept[path] = out[path]
            total += len(out[path])
    bad = [f"{p} ({why})" for p, data in kept.items() if (why := cookie_reason(data.splitlines()[:2]))]
    return kept, bad


def _from_archive(sb: Sandbox, archive: str, wanted: set[str]) -> dict[str, bytes] | None:
    try:
        raw = sb.read_file(archive, max_bytes=_READ_BYTES + (1 << 20))
        with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
            return {m.name: f.read() for m in tar.getmembers()
                    if m.isreg() and m.name in wanted and (f := tar.extractfile(m)) is not None}
    except (OSError, tarfile.TarError):
        return None  # no tar in the image, or a truncated archive: read file by file


def pack_sources(sources: dict[str, bytes]) -> bytes:
    """Read-back sources as one blob: JSON of path -> text (bytes kept exactly)."""
    return json.dumps({p: d.decode("utf-8", "surrogateescape") for p, d in sorted(sources.items())},
                      sort_keys=True, ensure_ascii=True).encode("ascii")


def unpack_sources(blob: bytes) -> dict[str, bytes]:
    data = json.loads(blob or b"{}")
    return {str(p): str(t).encode("utf-8", "surrogateescape") for p, t in data.items()}
