"""A sandbox made ready for a run: the base commit, the patch without its sections for tests,
test configuration, import hooks, hidden-test paths and unreadable files, a probe of what it
adds, the hidden tests. Nothing of the patch has run when this is done.
"""

from __future__ import annotations

import secrets
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evaluator.errors import InfraError
from evaluator.grading._checks import payload
from evaluator.grading._outcome import PATCH_FAILED, PATCH_REJECTED, GradeOutcome
from evaluator.grading._patchfilter import (
    filter_patch,
    git_numstat,
    git_opaque,
    read_sources,
    source_list,
    tar_sources,
)
from evaluator.grading._paths import is_protected, patch_paths, unsafe_paths
from evaluator.grading._shadow import shadowing
from evaluator.grading._spec import GradeSpec
from evaluator.lock import GIT, checkout_base
from evaluator.sandbox import Sandbox


@dataclass(frozen=True)
class Prepared:
    """The patch as a grade applies it."""

    kept: bytes
    touched: list[str]
    dropped: tuple[str, ...]
    opaque: tuple[tuple[str, str], ...]


def prepare(spec: GradeSpec, patch: bytes, hidden: list[str]) -> Prepared | GradeOutcome:
    """The patch to apply, or the outcome of a patch refused before any sandbox opens."""
    bad = unsafe_paths(patch_paths(patch))
    if bad:
        return GradeOutcome(PATCH_REJECTED, detail=f"patch touches forbidden paths: {bad[:5]}")
    protected = protection(spec, hidden)
    filtered = filter_patch(patch, protected)
    kept, dropped, opaque = filtered.patch, tuple(filtered.protected), tuple(filtered.opaque)
    touched = git_numstat(kept)
    smuggled = [p for p in touched if protected(p)]
    if smuggled:
        return GradeOutcome(PATCH_REJECTED, detail="git reads the patch as touching protected "
                            f"paths its headers hide: {smuggled[:5]}")
    hidden_opaque = git_opaque(kept)
    if hidden_opaque:
        return GradeOutcome(PATCH_REJECTED, opaque=opaque, detail="git reads the patch as "
                            f"carrying files no reviewer can read: {hidden_opaque[:5]}")
    return Prepared(kept, touched, dropped, opaque)


def lay(sb: Sandbox, spec: GradeSpec, prep: Prepared, hidden: dict[str, bytes], hardened: bool,
        *, sources: bool = True) -> tuple[str, GradeOutcome | None, dict[str, bytes]]:
    """(the grade's folder, the outcome where the patch failed or was rejected, the new text of
    the Python files it changed) once `sb` holds the base commit, the patch and the hidden
    tests."""
    gdir = f"/tmp/.grade-{secrets.token_hex(8)}"
    sb.put_files({
        f"{gdir}/patch.diff": prep.kept,
        f"{gdir}/before.sh": _absent_lister(prep.touched, f"{gdir}/new"),
        f"{gdir}/sources.list": source_list(prep.touched),
        f"{gdir}/probe.py": payload("_evaluator_probe.py"),
        **{f"{gdir}/hidden/{rel}": data for rel, data in hidden.items()},
    })
    r = sb.exec(_script(spec, gdir, hardened), workdir=spec.workdir)
    common: dict[str, Any] = {"dropped": prep.dropped, "opaque": prep.opaque}
    if r.exit_code == 4:
        return gdir, GradeOutcome(PATCH_FAILED, exit_code=r.exit_code, output=r.output,
                                  detail="git apply failed: " + r.output[-2000:], **common), {}
    if r.exit_code != 0:
        raise InfraError(
            f"cannot check out base commit {spec.base_commit}, apply the patch and lay the "
            f"hidden tests in {spec.image} (exit {r.exit_code}): {r.output[-500:]}; is the lock "
            "current (`doit lock:<set>`)?")
    shadows = shadowing(r.output)
    if shadows:
        return gdir, GradeOutcome(PATCH_REJECTED, **common, detail="; ".join(
            f"the patch adds {path}, which Python would import in place of the module {name!r} "
            "of the standard library, the test runner or an installed distribution"
            for path, name in shadows[:5])), {}
    if not sources:
        return gdir, None, {}
    texts, unreadable = read_sources(sb, spec.workdir, prep.touched, f"{gdir}/sources.tar")
    if unreadable:
        return gdir, GradeOutcome(PATCH_REJECTED, **common, detail="after `git apply`, no "
                                  f"reviewer can read: {unreadable[:5]}"), {}
    return gdir, None, texts


def _script(spec: GradeSpec, gdir: str, hardened: bool = True) -> str:
    """One exec: the base commit only where HEAD is not it (nothing is cleaned, so ignored build
    artifacts stay as the agent saw them), the patch with a probe of the files it adds, the
    hidden tests. Exit 3 to 6 say which step failed, before any code of the patch has run."""
    probe = f"{gdir}/probe.py"
    py = 'PY=$(command -v python3 || command -v python || true); ' if hardened else "PY=; "
    return (
        f"{checkout_base(spec.base_commit)} || exit 3; "
        f"if [ -s {gdir}/patch.diff ]; then {py}. {gdir}/before.sh || exit 6; "
        f"{GIT} apply --whitespace=nowarn {gdir}/patch.diff || exit 4; "
        f'if [ -n "$PY" ] && [ -s {gdir}/new ]; then "$PY" -I {probe} {gdir}/new . || exit 6; '
        f"fi; {tar_sources(gdir)}fi; "
        f"if [ -d {gdir}/hidden ]; then cp -R {gdir}/hidden/. . || exit 5; fi"
    )


def _absent_lister(paths: list[str], out: str) -> bytes:
    """A shell script writing (NUL-separated) the paths that do not exist yet: what the patch
    adds. Only module-like names matter to the probe, so only those are listed."""
    lines = [f": > {out}"]
    for p in paths:
        name = p.rsplit("/", 1)[-1]
        if name.endswith((".py", ".pyc", ".pyw", ".pyd", ".so")):
            q = shlex.quote(p)
            lines.append(f"[ -e {q} ] || [ -L {q} ] || printf '%s\\0' {q} >> {out}")
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")


def graded_part(spec: GradeSpec, patch: bytes, hidden: list[str]) -> bytes:
    """What of `patch` a grade applies: without its sections for tests, test configuration,
    import hooks, hidden-test paths and unreadable files (empty: it grades as the empty patch)."""
    return filter_patch(patch, protection(spec, hidden)).patch


def protection(spec: GradeSpec, hidden: list[str]) -> Callable[[str], bool]:
    """Paths a patch may not change at grading: tests, test config, import hooks, hidden tests
    and every folder above a hidden test (a symlink there would redirect it)."""
    fixed = set(hidden) | {"/".join(h.split("/")[:i]) for h in hidden for i in range(1, h.count("/") + 1)}
    return lambda path: path.strip("/") in fixed or is_protected(path, spec.test_files)
