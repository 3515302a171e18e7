"""Twins: copies of a test file's own tests with one expected value changed, so that they must
fail wherever their source passes.

`candidates` lists, for each required test of a file, the twins it can have (one per value the
test always asserts, `_perturb`), deterministically from the file's text: the gold gate grades
them all with the gold patch and keeps in the task's pool only those the gold patch fails
(`_pool`); a grade draws its twins from that pool and writes them in under fresh names at
random places among the file's statements (`_disguise`). Nothing marks a twin: its body is the
file's own code, its value another of the file's values or a neighbour of the one it replaces.
"""

from __future__ import annotations

import ast
import hashlib
import keyword
import random
import re
from dataclasses import asdict, dataclass
from typing import Any

from evaluator.grading._params import case_ids, parametrize_of
from evaluator.grading._perturb import changed, sites
from evaluator.pysource import parse

_PER_TEST, _PER_FILE = 3, 12


@dataclass(frozen=True)
class Candidate:
    """One twin that may be written into `path`: the test `classes::name` (as the file names
    it) with the bytes `start:end` of the file replaced by `text`. `case` is the index of the
    parametrized case it changes (None: every case, or a test without parameters); `source` the
    published ids of the required cases it copies; `digest` the file text it was made from."""

    path: str
    classes: tuple[str, ...]
    name: str
    start: int
    end: int
    text: str
    case: int | None
    source: tuple[str, ...]
    digest: str
    f2p: bool = True

    @property
    def key(self) -> str:
        raw = f"{self.path}\0{'::'.join(self.classes)}\0{self.name}\0{self.start}\0{self.text}"
        return hashlib.sha256(raw.encode()).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Candidate:
        return cls(**{**d, "classes": tuple(d["classes"]), "source": tuple(d["source"])})


def digest(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()


class TestFile:
    """A test file's text and tree."""

    def __init__(self, text: bytes) -> None:
        self.text = text if text.endswith(b"\n") or not text else text + b"\n"
        self.tree = parse(self.text)
        starts = [0]
        for line in self.text.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        self._starts = starts
        self.taken = {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name)} | {
            n.name for n in ast.walk(self.tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}

    def find(self, classes: tuple[str, ...], name: str) -> tuple[list[ast.stmt], ast.FunctionDef] | None:
        """(the body holding it, the definition) of a test, the last one of that name."""
        body: list[ast.stmt] = self.tree.body
        for cls in classes:
            found = [s for s in body if isinstance(s, ast.ClassDef) and s.name == cls]
            if not found:
                return None
            body = found[-1].body
        defs = [s for s in body if isinstance(s, ast.FunctionDef) and s.name == name]
        return (body, defs[-1]) if defs else None

    def offset(self, line: int, col: int = 0) -> int:
        return self._starts[line - 1] + col

    def span(self, fn: ast.stmt) -> tuple[int, int]:
        """Byte offsets of a definition, decorators included, to the end of its last line."""
        return self.offset(first_line(fn)), self.offset((fn.end_lineno or fn.lineno) + 1)


def candidates(path: str, text: bytes,
               groups: list[tuple[tuple[str, ...], str, list[tuple[str, str]], bool]]
               ) -> list[Candidate]:
    """Every twin the required tests of one file can have: `groups` holds, per test, its
    classes, its name, its required cases as (suffix "[id]" or "", published id) and whether
    it is a FAIL_TO_PASS test (those come first)."""
    try:
        tf = TestFile(text)
    except (SyntaxError, ValueError):
        return []
    out: list[Candidate] = []
    for classes, name, cases, f2p in sorted(groups, key=lambda g: (not g[3], g[0], g[1])):
        found = tf.find(classes, name)
        if found is None:
            continue
        fn = found[1]
        suffixes = [s for s, _ in cases]
        start, end = tf.span(fn)
        made = 0
        for i, (node, changes, index) in enumerate(sites(tf, fn, suffixes)):
            rng = random.Random(f"{digest(tf.text)}:{'::'.join(classes)}:{name}:{i}")
            edit = changed(rng, tf, node)
            if edit is None or made >= _PER_TEST:
                continue
            a, b, new = edit
            seg = tf.text[start:a] + new + tf.text[b:end]
            if index is not None and _ids_of(seg) is None:
                continue  # the changed value's case id cannot be known, nor the twin's
            source = tuple(p for s, p in cases if s in changes)
            out.append(Candidate(path, classes, name, a, b, new.decode("utf-8", "surrogateescape"),
                                 index, source, digest(tf.text), f2p))
            made += 1
        if len(out) >= _PER_FILE:
            break
    return out[:_PER_FILE]


def _ids_of(segment: bytes) -> list[str] | None:
    import textwrap
    try:
        fn = parse(textwrap.dedent(segment.decode("utf-8", "surrogateescape"))).body[0]
    except (SyntaxError, ValueError, IndexError):
        return None
    params = parametrize_of(fn) if isinstance(fn, ast.FunctionDef) else None
    return case_ids(params) if params else None


def tokens(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return [t.lower() for t in spaced.split("_") if t and t.lower() not in ("test", "tests")]


_STOP = {"self", "cls", "pytest", "assert", "true", "false", "none", "mock", "unittest"}


def vocabulary(tf: TestFile) -> list[str]:
    """Words of the file's own test names and of the names it uses: fresh names sound like
    the file's own."""
    names = [n.name for n in ast.walk(tf.tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    used = {n.id for n in ast.walk(tf.tree) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(tf.tree) if isinstance(n, ast.Attribute)} | {
        n.arg for n in ast.walk(tf.tree) if isinstance(n, ast.arg)}
    words = {t for n in (*names, *used) for t in tokens(n)}
    return sorted(w for w in words if w.isidentifier() and len(w) > 1 and w not in _STOP
                  and not keyword.iskeyword(w)) or ["case", "value", "check"]


def fresh_name(rng: random.Random, vocab: list[str], like: str, taken: set[str]) -> str:
    """A name bound nowhere in `taken`, made of the file's words, in the style of `like`
    (`test_a_b`, `testAB`, `TestAB`, or a class of any name)."""
    upper = like[:1].isupper()
    prefix = "Test" if like.startswith("Test") else "test" if like.startswith("test") else ""
    camel = upper or (prefix == "test" and like[4:5].isupper())
    for n in range(400):
        picked = rng.sample(vocab, min(len(vocab), rng.choice((1, 2, 2, 3))))
        if n > 200:
            picked.append(str(rng.randrange(100)))
        if camel:
            body = "".join(w.capitalize() for w in picked)
            name = (prefix or "") + body if prefix else body
        else:
            name = (prefix + "_" if prefix else "") + "_".join(picked)
        if name not in taken and name.isidentifier() and not keyword.iskeyword(name):
            taken.add(name)
            return name
    raise ValueError("no fresh name left")  # 400 draws from a vocabulary: never in practice


def _binds(stmt: ast.stmt) -> set[str]:
    names: set[str] = set()
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {stmt.name}
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return names


def place(rng: random.Random, tf: TestFile, body: list[ast.stmt], fn: ast.FunctionDef, *,
          nested: bool) -> tuple[int, bytes]:
    """(offset, blank lines) where a twin of `fn` goes: before a statement of the body holding
    its source, or after the last; after the docstring, the imports and whatever binds a name
    its `def` evaluates (decorators, defaults). Blank lines as the file has them there."""
    needed = {n.id for part in (*fn.decorator_list, *fn.args.defaults,
                                *(d for d in fn.args.kw_defaults if d is not None))
              for n in ast.walk(part) if isinstance(n, ast.Name)}
    first = 0
    for i, st in enumerate(body):
        doc = (i == 0 and isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)
               and isinstance(st.value.value, str))
        imports = not nested and isinstance(st, ast.Import | ast.ImportFrom)
        if doc or imports or (st is not fn and _binds(st) & needed):
            first = i + 1
    spots = []
    for i in range(first, len(body)):
        st = body[i]
        line = first_line(st)
        if i == 0 or line > (body[i - 1].end_lineno or body[i - 1].lineno):
            spots.append((tf.offset(line), _blank_before(tf, line)))
    last = body[-1]
    spots.append((tf.offset((last.end_lineno or last.lineno) + 1),
                  _blank_before(tf, first_line(fn))))
    return rng.choice(spots)


def first_line(st: ast.stmt) -> int:
    return min([st.lineno, *(d.lineno for d in getattr(st, "decorator_list", []))])


def _blank_before(tf: TestFile, line: int) -> bytes:
    n = 0
    while line - n - 1 >= 1 and not tf.text[tf.offset(line - n - 1):tf.offset(line - n)].strip():
        n += 1
    return b"\n" * max(n, 1)
