"""The capability policy by meaning: aliases, computed names and namespaces reach the same rule."""

import pytest

from evaluator.policy import _rules as R
from tests.policy.support import fatal, reasons


@pytest.mark.parametrize("code", [
    "import sys as s\nm = s.modules\n",
    "from sys import modules as m\n",
    "import sys\nm = getattr(sys, 'mod' + 'ules')\n",
    "import sys, codecs\nm = getattr(sys, codecs.decode('zbqhyrf', 'rot13'))\n",
    "import importlib\nm = importlib.import_module('sys').modules\n",
    "m = __import__('s' 'ys').modules\n",
    "import sys\nm = vars(sys)['modules']\n",
    "import sys\nm = sys.__dict__.get('modules')\n",
    "import sys\nm = globals()['sys'].modules\n",
    "import os\nm = os.sys.modules\n",
    "name = 'modules'\nimport sys\nm = getattr(sys, name)\n",
])
def test_the_module_table_is_reached_however_it_is_spelled(code: str) -> None:
    assert R.MODULE_TABLE in fatal(code)


def test_computed_names_on_capability_modules_and_star_imports() -> None:
    assert R.COMPUTED_CAPABILITY in fatal("import sys\ndef f(n):\n    return getattr(sys, n)\n")
    assert R.COMPUTED_CAPABILITY in fatal("import sys\nfor k, v in vars(sys).items(): pass\n")
    assert R.COMPUTED_CAPABILITY in fatal("import sys\nhelper(sys)\n")
    assert R.COMPUTED_CAPABILITY in fatal("import sys\nns = dict.__getitem__(vars(sys), k)\n")
    assert R.INTERPRETER in fatal("from sys import *\n")
    assert R.EXIT_HOOK in fatal("from os import *\n")
    assert R.COMPUTED_NAME in reasons("def f(o, n):\n    return getattr(o, n)\n")
    assert not fatal("def f(o, n):\n    return getattr(o, n)\n")


@pytest.mark.parametrize(("code", "reason"), [
    ("import sys\nf = sys._getframe(1)\n", R.FRAMES),
    ("from inspect import currentframe as here\nf = here()\n", R.FRAMES),
    ("try:\n    pass\nexcept Exception as e:\n    g = e.__traceback__.tb_frame\n", R.FRAMES),
    ("def f(x):\n    return getattr(x, 'f_' + 'back')\n", R.FRAMES),
    ("import gc\nfor o in gc.get_objects(): pass\n", R.OBJECT_GRAPH),
    ("subs = object.__subclasses__()\n", R.OBJECT_GRAPH),
    ("def f(fn):\n    return fn.__globals__\n", R.OBJECT_GRAPH),
    ("import ctypes\n", R.CTYPES),
    ("import marshal\n", R.EXEC_DATA),
])
def test_frames_object_graph_and_native_memory(code: str, reason: str) -> None:
    assert reason in fatal(code)


@pytest.mark.parametrize("code", [
    "import importlib.util\ns = importlib.util.spec_from_file_location('m', 'data.txt')\n",
    "from importlib.machinery import SourceFileLoader\n",
    "import sys\nsys.path.insert(0, '/tmp')\n",
    "import sys\nsys.meta_path.append(object())\n",
    "import importlib\ndef f(n):\n    return importlib.import_module(n)\n",
    "import runpy\n",
    "import zipimport\n",
    "spec = __loader__\n",
])
def test_the_import_machinery_and_loaders(code: str) -> None:
    assert R.IMPORTS in fatal(code)


def test_exec_of_data_is_a_violation_and_a_literal_is_read_as_code() -> None:
    assert R.EXEC_DATA in fatal("def f(code):\n    exec(code)\n")
    assert R.EXEC_DATA in fatal("import pickle\nx = pickle.loads(b'...')\n")
    assert fatal("exec('import sys; f = sys._getframe()')\n") == {R.FRAMES}
    assert fatal("x = eval('1 + 1')\n") == set()


@pytest.mark.parametrize(("code", "reason"), [
    ("import builtins\nbuiltins.len = lambda x: 0\n", R.BUILTINS),
    ("__builtins__['len'] = None\n", R.BUILTINS),
    ("import json\njson.dumps = str\n", R.OTHER_MODULES),
    ("import json\nsetattr(json, 'dumps', str)\n", R.OTHER_MODULES),
    ("import sys\nsys.stdout = None\n", R.OTHER_MODULES),
    ("from unittest import TestCase\nTestCase.run = None\n", R.OTHER_MODULES),
    ("def f(x):\n    type(x).check = lambda s: True\n", R.CLASS_HOOK),
])
def test_mutation_of_builtins_and_of_other_modules(code: str, reason: str) -> None:
    assert reason in fatal(code)


def test_the_own_package_may_set_its_own_attributes() -> None:
    assert not fatal("from pkg import settings\nsettings.DEBUG = True\n", "pkg/mod.py")
    assert R.OTHER_MODULES in fatal("import sys as pkg\npkg.x = 1\n", "pkg/mod.py")
