"""One read of an image's repository for every task that shares it: at lock time, the tasks of a
set that name the same image, workdir and base commit differ only in their gold patches, so the
seal script reads the repository once (its refs, reflogs and objects: seconds on an upstream
clone) and a second, short script places each gold patch against that read in the same
container.

The second script repeats the seal script's gold section (`_seal_script.SCRIPT`, from
`if [ -f "$S/gold.patch" ]`) over many patches; it is kept apart so that the seal script, which
is in the grader's and the attempt's harness versions, is not touched by this. A Docker test
checks that both give the same answer for the same patch (tests/images/test_inspect_docker.py).
What it finds goes into the lock's `history`, for people; no key holds it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import docker.errors

from evaluator.errors import BadInputError, InfraError
from evaluator.images._history import History, parse_history
from evaluator.images._seal import _CAPS, _ERRORS, _TIMEOUT_S, SCRATCH, _remove, _tar, seal_failed
from evaluator.images._seal_script import SCRIPT

# Runs the seal script in `inspect` mode without a gold patch, then GOLDS over $S/gold-*.patch.
_BOTH = 'sh -c "$1" seal inspect "$3" "$4" "$5" || exit $?; exec sh -c "$2" golds "$3" "$4" "$5"'

_KILLED = 137  # 128 + SIGKILL

GOLDS = r"""
set -u
wd=$1 base=$2 S=$3
export LC_ALL=C GIT_NO_REPLACE_OBJECTS=1 GIT_GRAFT_FILE=/nonexistent GIT_TERMINAL_PROMPT=0
export GIT_OPTIONAL_LOCKS=0 GIT_CONFIG_NOSYSTEM=1 HOME="$S/home"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
g() { git -c core.quotePath=false -c core.hooksPath=/dev/null -c core.fsmonitor=false -c gc.auto=0 \
          -c maintenance.auto=false -c core.logAllRefUpdates=false "$@"; }
cd "$wd" || exit 3
base=$(g rev-parse "$base^{commit}") || exit 3
common=$(cd "$(g rev-parse --git-common-dir)" && pwd -P) || exit 72
# What the seal script left: $S/reach, every object reachable from the base and the tags kept.
[ -f "$S/reach" ] || { echo "the seal script left no $S/reach"; exit 74; }
g ls-files -o --exclude-standard -z | head -c 5000000 | tr '\0' '\n' | head -n 2000 \
  > "$S/untracked"
: > "$S/untracked.ids"
[ -s "$S/untracked" ] && g hash-object --no-filters --stdin-paths < "$S/untracked" > "$S/untracked.ids"
for p in "$S"/gold-*.patch; do
  [ -f "$p" ] || continue
  n=${p##*/gold-}; n=${n%.patch}; d=$S/g.$n
  printf 'patch\t%s\n' "$n"
  (export GIT_INDEX_FILE="$d.index" GIT_OBJECT_DIRECTORY="$d.objects" \
          GIT_ALTERNATE_OBJECT_DIRECTORIES="$common/objects"
   mkdir -p "$d.objects" && g read-tree "$base" \
     && g apply --cached --whitespace=nowarn "$p" \
     && g diff-index --cached --no-renames --raw "$base") > "$d.raw" 2> "$d.err" \
    || printf 'gold-error\t%s\n' "$(tail -c 300 "$d.err" | tr '\n\t' '  ')"
  grep '^:' "$d.raw" | while IFS="$(printf '\t')" read -r meta path; do
    blob=$(echo "$meta" | cut -d' ' -f4); st=$(echo "$meta" | cut -d' ' -f5)
    [ "$st" = D ] && continue
    obj=0; g cat-file -e "$blob" 2>/dev/null && obj=1
    inh=0; grep -qxF "$blob" "$S/reach" && inh=1
    tree=0; [ -f "$path" ] && [ "$(g hash-object -- "$path")" = "$blob" ] && tree=1
    un=$(paste -d'\t' "$S/untracked.ids" "$S/untracked" | grep "^$blob	" | head -n 1 | cut -f2)
    printf 'gold\t%s\t%s\t%s\t%s\t%s\t%s\n' "$path" "$blob" "$obj" "$inh" "$tree" "${un:--}"
  done
done
exit 0
"""


def inspect_histories(client: Any, image: str, workdir: str, base_commit: str,
                      golds: Mapping[str, bytes], *,
                      labels: dict[str, str] | None = None) -> dict[str, History]:
    """For each name of `golds`, the `History` that `inspect_history(client, image, workdir,
    base_commit, golds[name])` gives, read in one container: the findings and counts once, the
    gold files per patch. An empty patch gets no gold files (as `inspect_history` without one)."""
    names = list(golds)
    files = {f"gold-{i}.patch": data for i, data in enumerate(golds.values()) if data}
    code, out = _run(client, image, workdir, base_commit, files, labels or {})
    if code == _KILLED:
        # SIGKILL from outside the script (the kernel's OOM killer while a parallel lock reads
        # other images): a transient infra fault, so the read is made once more before failing.
        code, out = _run(client, image, workdir, base_commit, files, labels or {})
    if code != 0:
        seal_failed(code, out, image, workdir, base_commit, "reading the repository's history")
    head, _, rest = out.partition("\npatch\t")
    shared = parse_history(head)
    per = dict(chunk.partition("\n")[::2] for chunk in rest.split("\npatch\t")) if rest else {}
    out_by_name = {}
    for i, name in enumerate(names):
        own = parse_history(per.get(str(i), ""))
        out_by_name[name] = dataclasses.replace(shared, gold=own.gold, gold_error=own.gold_error)
    return out_by_name


def _run(client: Any, image: str, workdir: str, base: str, files: dict[str, bytes],
         labels: dict[str, str]) -> tuple[int, str]:
    try:
        container = client.containers.create(
            image, ["seal", SCRIPT, GOLDS, workdir, base, SCRATCH],
            entrypoint=["/bin/sh", "-c", _BOTH], user="0:0", working_dir="/",
            network_mode="none", cap_drop=["ALL"], cap_add=_CAPS,
            security_opt=["no-new-privileges"], labels={**labels, "evaluator.purpose": "seal"})
    except docker.errors.ImageNotFound:
        raise BadInputError(f"image {image} is not on this Docker engine: run `doit lock:<set>` "
                            "for the task set that names it") from None
    except _ERRORS as e:
        raise InfraError(f"cannot start a container of {image} to read its repository: {e}") from e
    try:
        container.put_archive("/", _tar({f"{SCRATCH[1:]}/{k}": v for k, v in files.items()},
                                        SCRATCH[1:]))
        container.start()
        status = container.wait(timeout=_TIMEOUT_S)
        out = container.logs().decode("utf-8", errors="replace")
    except _ERRORS as e:
        raise InfraError(f"reading the repository of {image}: {e}") from e
    finally:
        _remove(container)
    return int(status.get("StatusCode", -1)), out
