"""The disguise: the ids a task publishes never appear in the run.

Every test defined in the files that hold required tests (classes and functions alike, required
or not) gets a fresh name for this grade, drawn from the words of the file's own names; a
parametrized test whose cases are written out gets fresh case ids; the grade's twins (copies
with one expected value changed, `_twins`) are written in under fresh names of the same kind,
at random places among the file's statements. Inside the sandbox every test is a file's test
under an unknown name; only the harness holds the mapping back (`Disguise.back`), so code that
passes exactly the published ids passes nothing, and code that passes what it cannot tell apart
passes the twins too.

What cannot be renamed stays as published and is said (`partial`): a test inherited from a file
that holds no required test, cases whose ids are made at run time, a file that names its own
tests in a string.
"""

from __future__ import annotations

import ast
import fnmatch
import io
import random
import re
import tokenize
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from evaluator.grading._params import case_ids, parametrize_of
from evaluator.grading._twins import (
    Candidate,
    TestFile,
    digest,
    fresh_name,
    place,
    vocabulary,
)

_DJANGO = re.compile(r"^(\w+) \(([\w.]+)\)$")
_TEST_GLOBS = ("test_*.py", "*_test.py", "tests.py", "test*.py")
STYLES = {"django": "class", "sympy": "functions"}


@dataclass(frozen=True)
class Ref:
    """A test id's parts: its file (pytest), classes, name, "[case]" suffix, and for Django the
    dotted `module.Class` it prints."""

    file: str | None
    classes: tuple[str, ...]
    name: str
    suffix: str = ""
    where: str = ""


def parse_id(test_id: str, style: str) -> Ref | None:
    if style == "class":
        m = _DJANGO.match(test_id)
        if not m:
            return None
        name, where = m.groups()
        where = where[: -len(name) - 1] if where.endswith("." + name) else where
        return Ref(None, (where.rsplit(".", 1)[-1],), name, "", where)
    if style == "functions":
        return Ref(None, (), test_id, "") if test_id.isidentifier() else None
    if "::" not in test_id:
        return None
    file, *parts = test_id.split("::")
    name, bracket, rest = parts[-1].partition("[")
    return Ref(file, tuple(parts[:-1]), name, bracket + rest)


def make_id(ref: Ref) -> str:
    if ref.where:
        module = ref.where.rsplit(".", 1)[0] if "." in ref.where else ""
        return f"{ref.name} ({module + '.' if module else ''}{ref.classes[-1]})"
    if ref.file is None:
        return ref.name
    return "::".join([ref.file, *ref.classes, ref.name]) + ref.suffix


def target_files(required: Iterable[str], hidden: Iterable[str], style: str) -> list[str]:
    """The files holding required tests: those their pytest ids name, else (runners that name
    tests without their file) the hidden test files."""
    files = sorted({r.file for t in required if (r := parse_id(t, style)) and r.file
                    and r.file.endswith(".py")})
    return files or sorted(h for h in hidden if h.endswith(".py") and any(
        fnmatch.fnmatch(PurePosixPath(h).name, g) for g in _TEST_GLOBS))


@dataclass(frozen=True)
class Planted:
    """A twin as this grade runs it: its id (without a case), the fresh id of the one case it
    changes (None: all of them), and what it copies."""

    candidate: Candidate
    at: str
    case: str | None
    cases: tuple[str, ...] = ()  # every case id of the twin, where they are known

    def runs(self, test_id: str) -> bool:
        if self.case is not None:
            return test_id == f"{self.at}[{self.case}]"
        return test_id == self.at or test_id.startswith(self.at + "[")


@dataclass
class Disguise:
    nonce: str
    style: str
    files: dict[str, bytes] = field(default_factory=dict)
    old: dict[str, dict[str, str]] = field(default_factory=dict)  # path -> fresh name -> old
    new: dict[str, dict[str, str]] = field(default_factory=dict)  # path -> old name -> fresh
    cases: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)  # fresh -> old
    twins: tuple[Planted, ...] = ()
    partial: list[str] = field(default_factory=list)
    renamed: bool = True

    def _path_of(self, ref: Ref, table: dict[str, dict[str, str]]) -> str | None:
        """The file a test id's names belong to (`table`: fresh names, or old ones)."""
        if ref.file is not None:
            return ref.file if ref.file in table else None
        names = [*ref.classes, ref.name]
        return next((p for p, m in table.items() if any(n in m for n in names)), None)

    def twin_of(self, test_id: str) -> Planted | None:
        return next((tw for tw in self.twins if tw.runs(test_id)), None)

    def back(self, tests: Mapping[str, str]) -> tuple[dict[str, str], dict[str, list[str]]]:
        """(the run's outcomes under the ids the tests have without the disguise, each twin's
        outcomes by its candidate's key): the twins are not among the first."""
        out: dict[str, str] = {}
        twins: dict[str, list[str]] = {}
        for tid, status in tests.items():
            tw = self.twin_of(tid)
            if tw is not None:
                twins.setdefault(tw.candidate.key, []).append(status)
                continue
            out[self.original(tid)] = status
        return out, twins

    def original(self, test_id: str) -> str:
        """The id a test of this grade's run has without the disguise."""
        return self._map(test_id, self.old, lambda key: self.cases.get(key, {}))

    def run_id(self, test_id: str) -> str:
        """The id an original test id has in this grade's run (itself where not renamed)."""
        return self._map(test_id, self.new,
                         lambda key: {v: k for k, v in self.cases.get(key, {}).items()})

    def _map(self, test_id: str, names: dict[str, dict[str, str]],
             cases_of: Callable[[tuple[str, str]], dict[str, str]]) -> str:
        ref = parse_id(test_id, self.style)
        path = self._path_of(ref, names) if ref else None
        if ref is None or path is None:
            return test_id
        m = names[path]
        classes, name = tuple(m.get(c, c) for c in ref.classes), m.get(ref.name, ref.name)
        old = (ref.classes, ref.name) if names is self.new else (classes, name)
        cases = cases_of((path, "::".join([*old[0], old[1]])))
        case = ref.suffix[1:-1]
        suffix = f"[{cases[case]}]" if case in cases else ref.suffix
        return make_id(Ref(ref.file, classes, name, suffix, _moved(ref.where, classes)))


def _moved(where: str, classes: tuple[str, ...]) -> str:
    """Django's dotted `module.Class`, the class renamed."""
    if not where or not classes:
        return where
    return where.rsplit(".", 1)[0] + "." + classes[-1] if "." in where else classes[-1]


def disguise(nonce: str, texts: Mapping[str, bytes], required: Iterable[str], style: str,
             twins: Iterable[Candidate] = (), *, rename: bool = True) -> Disguise:
    """This grade's files: `texts` (path -> original text of each file holding required
    tests) with every test renamed (unless `rename` is False) and `twins` written in."""
    required = tuple(required)
    d = Disguise(nonce, style, renamed=rename)
    taken = {n for t in required if (r := parse_id(t, style)) for n in (*r.classes, r.name)}
    parsed = {}
    for path, text in sorted(texts.items()):
        try:
            parsed[path] = TestFile(text)
        except (SyntaxError, ValueError):
            d.partial.append(f"{path} does not parse: its tests keep their names")
        else:
            taken |= parsed[path].taken
    planted: list[Planted] = []
    for path, tf in parsed.items():
        rng = random.Random(f"{nonce}:{path}")
        mine = [c for c in twins if c.path == path]
        d.files[path], more = _write(d, rng, path, tf, required, mine, taken, rename)
        planted += more
    d.twins = tuple(planted)
    return d


_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _tests(tf: TestFile, style: str) -> list[tuple[tuple[str, ...], _Def]]:
    """Every test definition of the file (classes and functions), with the classes above it."""
    out: list[tuple[tuple[str, ...], _Def]] = []
    case_bases = {n.name for n in ast.walk(tf.tree) if isinstance(n, ast.ClassDef)
                  and any(_base(b).endswith("TestCase") for b in n.bases)}

    def walk(body: list[ast.stmt], above: tuple[str, ...]) -> None:
        for st in body:
            if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef) and st.name.startswith("test"):
                if above or style != "class":
                    out.append((above, st))
            elif isinstance(st, ast.ClassDef) and style != "functions" and (
                    st.name.startswith("Test") or any(
                        _base(b).endswith("TestCase") or _base(b) in case_bases for b in st.bases)):
                out.append((above, st))
                walk(st.body, (*above, st.name))
    walk(tf.tree.body, ())
    return out


def _base(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _write(d: Disguise, rng: random.Random, path: str, tf: TestFile, required: tuple[str, ...],
           twins: list[Candidate], taken: set[str], rename: bool) -> tuple[bytes, list[Planted]]:
    vocab = vocabulary(tf)
    defs = _tests(tf, d.style)
    names = {st.name for _, st in defs}
    new = {n: fresh_name(rng, vocab, n, taken) for n in sorted(names)} if rename else {}
    d.new[path], d.old[path] = new, {v: k for k, v in new.items()}
    mine = [r for t in required if (r := parse_id(t, d.style)) and (r.file in (None, path))]
    if rename:
        _said(d, path, tf, names, mine)
    edits = _renames(tf, new, 0, len(tf.text))
    for above, st in defs:
        if isinstance(st, ast.FunctionDef) and rename:
            edits += _fresh_cases(d, rng, path, tf, above, st, mine)
    inserts: list[tuple[int, int, bytes]] = []
    planted = []
    for c in twins:
        made = _twin(d, rng, path, tf, c, new, vocab, taken, rename)
        if made is not None:
            at, order, chunk, tw = made
            inserts.append((at, order, chunk))
            planted.append(tw)
    out = tf.text
    pieces = [(a, b, t, 1) for a, b, t in edits] + [(a, o, t, 0) for a, o, t in inserts]
    # Right to left; at one offset an insertion (a statement start) goes before an edit there.
    for a, b, text, kind in sorted(pieces, key=lambda p: (p[0], p[3], p[1]), reverse=True):
        out = out[:a] + text + (out[b:] if kind else out[a:])
    return out, planted


def _said(d: Disguise, path: str, tf: TestFile, names: set[str], mine: list[Ref]) -> None:
    """Say where the file names its own tests in a string: that name stays visible."""
    strings = " ".join(n.value for n in ast.walk(tf.tree)
                       if isinstance(n, ast.Constant) and isinstance(n.value, str))
    said = sorted(n for n in names if re.search(rf"\b{re.escape(n)}\b", strings))
    if said:
        d.partial.append(f"{path} names its tests {', '.join(said[:5])} in strings")
    defined = names
    kept = sorted({r.name for r in mine if r.name not in defined})
    if kept:
        d.partial.append(f"{path}: {', '.join(kept[:5])} not defined in the file (inherited or "
                         "generated): kept as published")


def _renames(tf: TestFile, new: Mapping[str, str], start: int, end: int,
             skip: int = -1) -> list[tuple[int, int, bytes]]:
    """Edits renaming every NAME token in `start:end` that is an old name (the file's own
    references to its tests move with them); `skip`: a token start left alone."""
    if not new:
        return []
    lines = tf.text.splitlines(keepends=True)
    out = []
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(
            tf.text.decode("utf-8", "surrogateescape")).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    for tok in toks:
        if tok.type != tokenize.NAME or tok.string not in new:
            continue
        row, col = tok.start
        a = tf.offset(row) + len(lines[row - 1].decode("utf-8", "surrogateescape")[:col]
                                 .encode("utf-8", "surrogateescape"))
        b = a + len(tok.string.encode())
        if start <= a < end and a != skip:
            out.append((a, b, new[tok.string].encode()))
    return out


def _fresh_cases(d: Disguise, rng: random.Random, path: str, tf: TestFile,
                 above: tuple[str, ...], fn: ast.FunctionDef, mine: list[Ref]
                 ) -> list[tuple[int, int, bytes]]:
    """Fresh case ids for a test whose cases are written out (an `ids=` written or replaced);
    where they are not, a required case's id stays as published and is said."""
    params = parametrize_of(fn)
    ids = case_ids(params) if params else None
    wanted = [r for r in mine if r.name == fn.name and r.classes == above and r.suffix]
    if params is None or ids is None:
        if wanted:
            d.partial.append(f"{path}::{'::'.join([*above, fn.name])}: case ids made at run "
                             "time stay as published")
        return []
    fresh = _fresh_ids(rng, len(ids))
    key = "::".join([*above, fn.name])
    d.cases[(path, key)] = dict(zip(fresh, ids, strict=True))
    return [_ids_edit(tf, fn, fresh)]


def _fresh_ids(rng: random.Random, n: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    out: list[str] = []
    while len(out) < n:
        word = "".join(rng.choice(letters) for _ in range(rng.randint(3, 6)))
        if word not in out:
            out.append(word)
    return out


def _ids_edit(tf: TestFile, fn: ast.FunctionDef, fresh: list[str]) -> tuple[int, int, bytes]:
    call = next(d for d in fn.decorator_list if isinstance(d, ast.Call)
                and getattr(d.func, "attr", getattr(d.func, "id", "")) == "parametrize")
    text = repr(fresh).encode()
    for kw in call.keywords:
        if kw.arg == "ids":
            v = kw.value
            return (tf.offset(v.lineno, v.col_offset),
                    tf.offset(v.end_lineno or v.lineno, v.end_col_offset or 0), text)
    last = [*call.args, *(k.value for k in call.keywords)][-1]
    at = tf.offset(last.end_lineno or last.lineno, last.end_col_offset or 0)
    return at, at, b", ids=" + text


def _twin(d: Disguise, rng: random.Random, path: str, tf: TestFile, c: Candidate,
          new: Mapping[str, str], vocab: list[str], taken: set[str], rename: bool
          ) -> tuple[int, int, bytes, Planted] | None:
    found = tf.find(c.classes, c.name)
    if found is None or c.digest != digest(tf.text):
        d.partial.append(f"twin {c.key} of {path} was made from another text of the file: "
                         "left out")
        return None
    body, fn = found
    start, end = tf.span(fn)
    name = fresh_name(rng, vocab, c.name, taken)
    def_at = _def_name_at(tf, fn)
    edits = [(c.start, c.end, c.text.encode("utf-8", "surrogateescape")),
             (def_at, def_at + len(fn.name.encode()), name.encode()),
             *_renames(tf, new, start, end, skip=def_at)]
    case: str | None = None
    cases: tuple[str, ...] = ()
    params = parametrize_of(fn)
    seg_fn = None
    if params is not None:
        seg = _apply(tf.text, [e for e in edits if start <= e[0] < end])[start:]
        seg_fn = _reparsed(seg[: len(seg) - (len(tf.text) - end)])
    seg_params = parametrize_of(seg_fn) if isinstance(seg_fn, ast.FunctionDef) else None
    ids = case_ids(seg_params) if seg_params else None
    if params is not None and ids is not None and rename:
        fresh = _fresh_ids(rng, len(ids))
        edits.append(_ids_edit(tf, fn, fresh))
        case, cases = (fresh[c.case] if c.case is not None else None), tuple(fresh)
    elif c.case is not None:
        if ids is None:
            return None
        case, cases = ids[c.case], tuple(ids)
    elif ids is not None:
        cases = tuple(ids)
    segment = _apply(tf.text, [e for e in edits if start <= e[0] < end])
    chunk = segment[start:len(segment) - (len(tf.text) - end)]
    at, gap = place(rng, tf, body, fn, nested=bool(c.classes))
    classes = tuple(new.get(x, x) for x in c.classes)
    source = parse_id(c.source[0], d.style) if c.source else None
    where = _moved(source.where, classes) if source else ""
    twin_id = make_id(Ref(path if d.style == "pytest" else None, classes, name, "", where))
    if not chunk.endswith(b"\n"):
        chunk += b"\n"
    text = chunk + gap if at < len(tf.text) else gap + chunk
    return at, -len(c.classes), text, Planted(c, twin_id, case, cases)


def _def_name_at(tf: TestFile, fn: ast.FunctionDef) -> int:
    line_start = tf.offset(fn.lineno)
    line = tf.text[line_start:tf.offset(fn.lineno + 1)]
    m = re.search(rb"\bdef\s+(" + re.escape(fn.name.encode()) + rb")\b", line)
    assert m is not None, "a FunctionDef's line holds its `def`"
    return line_start + m.start(1)


def _apply(text: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    for a, b, new in sorted(edits, reverse=True):
        text = text[:a] + new + text[b:]
    return text


def _reparsed(segment: bytes) -> ast.stmt | None:
    import textwrap

    from evaluator.pysource import parse
    try:
        return parse(textwrap.dedent(segment.decode("utf-8", "surrogateescape"))).body[0]
    except (SyntaxError, ValueError, IndexError):
        return None
