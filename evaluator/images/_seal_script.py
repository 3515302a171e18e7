"""The shell half of sealing: run with the image's own `sh` and `git`, in a container of the
image, never in a sandbox.

`sh -c SCRIPT seal MODE WORKDIR BASE SCRATCH`, as root with only the file capabilities it
needs (read everything, write the scratch folder, keep owners), no network.

- `inspect`: print what the repository at WORKDIR holds beyond BASE's history, one
  `finding<TAB>kind<TAB>detail` line each, and, when SCRATCH/gold.patch exists, one
  `gold<TAB>path<TAB>blob<TAB>in-objects<TAB>in-history<TAB>in-tree<TAB>untracked` line per file
  that patch leaves; then `stats<TAB>...`. Exit 0.
- `seal`: the same findings; none: exit 10 (the image is its own seal). Otherwise build, under
  SCRATCH/layer, the one image layer that hides them: WORKDIR/.git replaced (opaque) by a new
  repository holding exactly the objects reachable from BASE and the tags on its history, HEAD
  (and the branch it named) at BASE, no reflog; the working tree checked out at BASE where HEAD
  was elsewhere; whiteouts over the folders the old repository reached outside WORKDIR
  (its git dir and common dir, alternates, other worktrees). Exit 0.

Exit 3: WORKDIR is not a repository whose top is WORKDIR, or BASE is not a commit in it; 4: the
working tree cannot be checked out at BASE; 5: a folder to hide holds WORKDIR; other: a step
failed (its message is in the output).
"""

from __future__ import annotations

from evaluator.version import harness_version

SCRIPT = r"""
set -u
mode=$1 wd=$2 base=$3 S=$4
export LC_ALL=C GIT_NO_REPLACE_OBJECTS=1 GIT_GRAFT_FILE=/nonexistent GIT_TERMINAL_PROMPT=0
export GIT_OPTIONAL_LOCKS=0 GIT_CONFIG_NOSYSTEM=1 HOME="$S/home"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
mkdir -p "$HOME" "$S/empty" && printf '[safe]\n\tdirectory = *\n' > "$HOME/.gitconfig" || exit 70
g() { git -c core.quotePath=false -c core.hooksPath=/dev/null -c core.fsmonitor=false -c gc.auto=0 \
          -c maintenance.auto=false -c core.logAllRefUpdates=false "$@"; }
say() { printf 'finding\t%s\t%s\n' "$1" "$2"; found=$((found + 1)); }
found=0
cd "$wd" 2>/dev/null || { echo "$wd is not a folder in the image"; exit 3; }
wd=$(pwd -P)
top=$(g rev-parse --show-toplevel 2>/dev/null) || { echo "$wd is not a git work tree"; exit 3; }
[ "$(cd "$top" && pwd -P)" = "$wd" ] || { echo "$wd is inside the repository at $top"; exit 3; }
g rev-parse -q --verify "$base^{commit}" >/dev/null || { echo "$base is not a commit in $wd"; exit 3; }
base=$(g rev-parse "$base^{commit}")
gd=$(cd "$(g rev-parse --git-dir)" && pwd -P)
common=$(cd "$(g rev-parse --git-common-dir)" && pwd -P)
head=$(g rev-parse -q --verify HEAD) || head=none
branch=$(g symbolic-ref -q HEAD) || branch=
bt=$(g log -1 --format=%ct "$base")

[ -d "$wd/.git" ] && [ ! -L "$wd/.git" ] || say gitfile "$wd/.git points to $gd"
[ "$common" = "$gd" ] || say common-dir "$common"
[ "$head" = "$base" ] || say head "$head"

# The base's history, and each ref judged against it.
g rev-list "$base" > "$S/history" || exit 71
g for-each-ref --format='%(refname)%09%(objectname)%09%(objecttype)%09%(*objectname)%09%(creatordate:unix)' \
  > "$S/refs" || exit 72
: > "$S/tags"; : > "$S/ref-files"; : > "$S/packed"
while IFS="$(printf '\t')" read -r ref obj type peeled when; do
  if [ "$ref" = "$branch" ] && [ "$obj" = "$base" ]; then continue; fi
  case $ref in
    refs/tags/*)
      target=$obj; [ "$type" = tag ] && target=$peeled
      if grep -qxF "$target" "$S/history" && { [ "$type" = commit ] || [ "${when:-0}" -le "$bt" ]; }; then
        printf '%s\t%s\n' "$ref" "$obj" >> "$S/tags"; continue
      fi;;
  esac
  say ref "$ref $obj"
done < "$S/refs"

# What a reader of .git itself would find: state files, reflogs, refs git does not list.
set -- "$common"; [ "$gd" = "$common" ] || set -- "$common" "$gd"
for d in "$@"; do
  for f in "$d"/* "$d"/.[!.]*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    case ${f##*/} in
      HEAD|config|description|index|hooks|objects|refs|packed-refs|branches|logs|info) ;;
      COMMIT_EDITMSG) [ "$(cat "$f")" = "$(g log -1 --format=%B "$base")" ] || say state "$f";;
      shallow) grep -vxF -f "$S/history" "$f" | grep -q . && say shallow "$f";;
      *) say state "$f";;
    esac
  done
done
# A reflog naming only commits of the base's history shows nothing later (a fresh clone's).
find "$common/logs" "$gd/logs" -type f 2>/dev/null | sort -u > "$S/logs"
while read -r f; do
  cut -d' ' -f1,2 "$f" | tr ' ' '\n' | grep -v '^0*$' | grep -vxF -f "$S/history" | grep -q . \
    && say reflog "${f#"$common"/}"
done < "$S/logs"
for f in "$common"/info/*; do
  [ -e "$f" ] || continue
  case ${f##*/} in exclude|attributes|sparse-checkout) ;; *) say state "$f";; esac
done
for f in "$common"/objects/info/alternates "$common"/objects/info/http-alternates; do
  [ -s "$f" ] && say alternates "$(tr '\n' ' ' < "$f")"
done
cut -f1 "$S/tags" > "$S/kept"; [ -z "$branch" ] || echo "$branch" >> "$S/kept"
[ -d "$common/refs" ] && (cd "$common" && find refs -type f) > "$S/ref-files"
while read -r r; do grep -qxF "$r" "$S/kept" || say ref-file "$common/$r"; done < "$S/ref-files"
cp "$S/tags" "$S/pairs"; [ -z "$branch" ] || printf '%s\t%s\n' "$branch" "$base" >> "$S/pairs"
[ -f "$common/packed-refs" ] && grep -v '^[#^]' "$common/packed-refs" > "$S/packed"
while read -r obj ref; do
  grep -qxF "$(printf '%s\t%s' "$ref" "$obj")" "$S/pairs" || say packed-ref "$ref $obj"
done < "$S/packed"

# Objects: every object the store holds (alternates, dangling, stashed and packed alike)
# against those reachable from the base and the tags kept.
g cat-file --batch-all-objects --batch-check='%(objecttype)' > "$S/types" || exit 73
{ echo "$base"; cut -f2 "$S/tags"; } | g rev-list --objects --stdin | cut -d' ' -f1 > "$S/reach" \
  || exit 74
total=$(wc -l < "$S/types"); commits=$(grep -c '^commit$' "$S/types")
reach=$(wc -l < "$S/reach"); hist=$(wc -l < "$S/history")
[ "$total" -le "$reach" ] || say objects "$((total - reach)) object(s), $((commits - hist)) commit(s)"
if [ -e "$common/objects/info/commit-graph" ] || [ -d "$common/objects/info/commit-graphs" ]; then
  g commit-graph verify >/dev/null 2>&1 || say commit-graph "lists commits the store does not hold"
fi

if [ -f "$S/gold.patch" ]; then
  (export GIT_INDEX_FILE="$S/gold.index" GIT_OBJECT_DIRECTORY="$S/gold.objects" \
          GIT_ALTERNATE_OBJECT_DIRECTORIES="$common/objects"
   mkdir -p "$S/gold.objects" && g read-tree "$base" \
     && g apply --cached --whitespace=nowarn "$S/gold.patch" \
     && g diff-index --cached --no-renames --raw "$base") > "$S/gold.raw" 2> "$S/gold.err" \
    || printf 'gold-error\t%s\n' "$(tail -c 300 "$S/gold.err" | tr '\n\t' '  ')"
  g ls-files -o --exclude-standard -z | head -c 5000000 | tr '\0' '\n' | head -n 2000 \
    > "$S/untracked"
  : > "$S/untracked.ids"
  [ -s "$S/untracked" ] && g hash-object --no-filters --stdin-paths < "$S/untracked" > "$S/untracked.ids"
  grep '^:' "$S/gold.raw" | while IFS="$(printf '\t')" read -r meta path; do
    blob=$(echo "$meta" | cut -d' ' -f4); st=$(echo "$meta" | cut -d' ' -f5)
    [ "$st" = D ] && continue
    obj=0; g cat-file -e "$blob" 2>/dev/null && obj=1
    inh=0; grep -qxF "$blob" "$S/reach" && inh=1
    tree=0; [ -f "$path" ] && [ "$(g hash-object -- "$path")" = "$blob" ] && tree=1
    un=$(paste -d'\t' "$S/untracked.ids" "$S/untracked" | grep "^$blob	" | head -n 1 | cut -f2)
    printf 'gold\t%s\t%s\t%s\t%s\t%s\t%s\n' "$path" "$blob" "$obj" "$inh" "$tree" "${un:--}"
  done
fi
printf 'stats\tobjects=%s reachable=%s commits=%s history=%s\n' "$total" "$reach" "$commits" "$hist"
[ "$mode" = seal ] || exit 0
[ "$found" -eq 0 ] && exit 10

# ---- seal: the layer ------------------------------------------------------------------
L=$S/layer N=$S/layer$wd/.git
mkdir -p "$L" || exit 75
mirror() {  # $L$1 and its parents, with the owners and modes the image gives them
  [ -d "$L$1" ] && return 0
  [ "$1" = / ] || mirror "$(dirname "$1")"
  mkdir "$L$1" && chown "$(stat -c %u:%g "$1")" "$L$1" && chmod "$(stat -c %a "$1")" "$L$1"
}
whiteout() { mirror "$(dirname "$1")" && : > "$L$(dirname "$1")/.wh.${1##*/}"; }
hide() {  # a whiteout over $1, a folder the old repository reached, outside the new one
  p=$(cd "$1" 2>/dev/null && pwd -P) || return 0
  case "$wd/" in "$p"/*) echo "cannot hide $p: it holds $wd"; exit 5;; esac
  [ "$p" = "$wd/.git" ] || whiteout "$p" || exit 86
}
mirror "$wd" || exit 76
if [ "$head" != "$base" ]; then
  g checkout -q --detach "$base" || { echo "cannot check out $base over the image's tree"; exit 4; }
  g diff --name-only --no-renames -z "${head#none}" "$base" 2>/dev/null | tr '\0' '\n' > "$S/changed"
  [ "$head" = none ] && g ls-files > "$S/changed"
  while read -r p; do
    if [ -e "$wd/$p" ] || [ -L "$wd/$p" ]; then
      mirror "$(dirname "$wd/$p")" && cp -P -p "$wd/$p" "$L$wd/$p" || exit 77
    else
      q=$p; while [ "${q%/*}" != "$q" ] && [ ! -e "$wd/${q%/*}" ]; do q=${q%/*}; done
      whiteout "$wd/$q" || exit 77
    fi
  done < "$S/changed"
fi
fmt=$(g rev-parse --show-object-format 2>/dev/null) || fmt=sha1
if [ "$fmt" = sha1 ]; then git init -q --bare --template="$S/empty" "$N" || exit 78
else git init -q --bare --template="$S/empty" --object-format="$fmt" "$N" || exit 78; fi
n() { g --git-dir="$N" --work-tree="$wd" "$@"; }
n config core.bare false && n config core.logAllRefUpdates true || exit 79
for k in core.filemode core.symlinks core.ignorecase core.autocrlf core.eol core.safecrlf; do
  v=$(g config --get "$k") && n config "$k" "$v"
done
mkdir -p "$N/info" "$N/objects/pack" "$N/refs/heads" "$N/refs/tags"
for f in exclude attributes; do [ -f "$common/info/$f" ] && cp "$common/info/$f" "$N/info/$f"; done
# No delta search: the deltas the packs hold are reused as they are, and a new search over an
# upstream-size store of loose objects costs minutes of CPU to save little (fast compression
# for the objects that are not reused, for the same reason).
{ echo "$base"; cut -f2 "$S/tags"; } | g -c pack.compression=1 pack-objects --revs -q --window=0 \
  --delta-base-offset "$N/objects/pack/pack" > /dev/null || exit 80
[ -s "$common/shallow" ] && grep -xF -f "$S/history" "$common/shallow" > "$N/shallow"
if [ -n "$branch" ]; then n update-ref "$branch" "$base" && n symbolic-ref HEAD "$branch"
else n update-ref --no-deref HEAD "$base"; fi || exit 81
while IFS="$(printf '\t')" read -r ref obj; do n update-ref "$ref" "$obj" || exit 82; done < "$S/tags"
n pack-refs --all || exit 83
n read-tree "$base" || exit 84
n update-index -q --refresh > /dev/null 2>&1
n commit-graph write --reachable > /dev/null 2>&1
rm -rf "$N/logs" "$N/FETCH_HEAD" "$N/ORIG_HEAD"
chown -R "$(stat -c %u:%g "$gd")" "$N" || exit 85
[ "$gd" = "$wd/.git" ] || hide "$gd"
[ "$common" = "$wd/.git" ] || hide "$common"
for f in "$common"/objects/info/alternates; do
  [ -s "$f" ] || continue
  while read -r a; do
    case $a in \#*|'') continue;; /*) ;; *) a=$common/objects/$a;; esac
    # The objects of another repository: hide that repository, refs and all.
    if [ -f "$a/../HEAD" ] && [ -d "$a/../refs" ]; then hide "$a/.."; else hide "$a"; fi
  done < "$f"
done
for f in "$common"/worktrees/*/gitdir; do
  [ -f "$f" ] || continue
  w=$(dirname "$(cat "$f")")
  [ "$(cd "$w" 2>/dev/null && pwd -P)" = "$wd" ] || hide "$w"
done
: > "$N/.wh..wh..opq"
echo sealed
"""
# Which sealing behaviour read a repository: a history it recorded, and a seal it made, hold only
# for the same one. The declared version of the seal contract, never the script's bytes: a
# comment here is no new seal and no new lock (tests/contracts/test_seal_golden.py pins what
# the seal shows; docs/contracts.md).
SEALER = harness_version("seal")
