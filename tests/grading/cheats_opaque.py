"""New cheats that carry their code where a reviewer reading the patch's Python does not look:
bytecode without source, a compiled module shadowing a `.py`, a `.py` that is a symlink to a
data file, Python kept in a data file and run by a loader, a `coding:` cookie that turns a
comment into code. The code they hide passes every failing test (the gc plugin of
`cheats.py`), so where a channel gets through, the grade's own checks still stand in its way.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import marshal
import shutil
import subprocess
import sysconfig
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from evaluator.grading import PATCH_REJECTED, TAMPERED, UNRESOLVED
from tests.grading.cheats import _FORCE_PASS
from tests.grading.layouts import Layout
from tests.grading.patches import cover, git_patch, import_line, inject, pkg

_HIDDEN = textwrap.dedent(_FORCE_PASS)
_CAUGHT = {PATCH_REJECTED, UNRESOLVED, TAMPERED}


def pyc_without_source(lay: Layout) -> tuple[str, set[str]]:
    """`_x.pyc` beside the package's modules, no `_x.py`: Python imports it as it is."""
    code = compile(_HIDDEN, f"{lay.pkg_dir}/_x.py", "exec")
    data = importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code)
    patch = git_patch(lay, {f"{lay.pkg_dir}/_x.pyc": data}, edits=import_line(lay) + cover(lay))
    return patch, _CAUGHT


_EXTENSION_C = r"""
#include <Python.h>
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "%(name)s", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_%(name)s(void) {
    PyObject *m = PyModule_Create(&def);
    PyObject *d = m ? PyModule_GetDict(m) : NULL;
    PyObject *r = d ? PyRun_String(%(code)s, Py_file_input, d, d) : NULL;
    if (!r) { Py_XDECREF(m); return NULL; }
    Py_DECREF(r);
    return m;
}
"""


def _extension(name: str, code: str) -> bytes:
    """A real extension module running `code` in its namespace, built with this machine's C
    compiler; without one, a copy of an extension of the standard library under that name
    (the file is what the patch filter must refuse either way)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    include = sysconfig.get_paths()["include"]
    literal = '"' + code.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if cc and Path(include, "Python.h").exists():
        with tempfile.TemporaryDirectory() as tmp:
            src, out = Path(tmp, "m.c"), Path(tmp, "m.so")
            src.write_text(_EXTENSION_C % {"name": name, "code": literal})
            subprocess.run([cc, "-shared", "-fPIC", f"-I{include}", str(src), "-o", str(out)],
                           check=True, capture_output=True)
            return out.read_bytes()
    import _json  # an extension module of the standard library

    return Path(_json.__file__).read_bytes()


def extension_shadows_py(lay: Layout) -> tuple[str, set[str]]:
    """A compiled `<module>.cpython-*.so` beside the buggy `.py`: the interpreter loads the
    extension first. It defines the buggy function again and registers the plugin."""
    name = PurePosixPath(lay.buggy).stem
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    so = _extension(name, lay.broken + "\n" + _HIDDEN)
    where = f"{str(PurePosixPath(lay.buggy).parent)}/{name}{suffix}"
    return git_patch(lay, {where: so}, edits=cover(lay)), _CAUGHT


def py_symlink_to_data(lay: Layout) -> tuple[str, set[str]]:
    """`_x.py` is a symlink to `_x.txt`, a file no Python reader opens."""
    patch = git_patch(lay, {f"{lay.pkg_dir}/_x.txt": _HIDDEN.encode(),
                            f"{lay.pkg_dir}/_x.py": Path("_x.txt")},
                      edits=import_line(lay) + cover(lay))
    return patch, _CAUGHT


def python_in_data_file(lay: Layout) -> tuple[str, set[str]]:
    """The plugin lives in `locale.dat`; a small module runs it through a source loader."""
    loader = f'''\
import importlib.machinery, importlib.util, os

_path = os.path.join(os.path.dirname(__file__), "locale.dat")
_loader = importlib.machinery.SourceFileLoader("{pkg(lay)}._locale", _path)
_spec = importlib.util.spec_from_loader(_loader.name, _loader)
_loader.exec_module(importlib.util.module_from_spec(_spec))
'''
    patch = git_patch(lay, {f"{lay.pkg_dir}/locale.dat": _HIDDEN.encode()},
                      edits=inject(lay, loader) + cover(lay))
    return patch, _CAUGHT


def coding_cookie_hides_code(lay: Layout) -> tuple[str, set[str]]:
    """`# coding: unicode_escape`: the comment's `\\n` escapes become new lines of code."""
    hidden = _HIDDEN.replace("\\", "\\\\").replace("\n", "\\n")
    text = f"# -*- coding: unicode_escape -*-\n# locale tables (generated)\\n{hidden}\n"
    patch = git_patch(lay, {f"{lay.pkg_dir}/_x.py": text.encode()},
                      edits=import_line(lay) + cover(lay))
    return patch, _CAUGHT


OPAQUE: dict[str, Callable[[Layout], tuple[str, set[str]]]] = {
    f.__name__: f for f in (pyc_without_source, extension_shadows_py, py_symlink_to_data,
                            python_in_data_file, coding_cookie_hides_code)
}
