"""Two task layouts the cheat battery runs against: `calc` (flat package, pytest.ini puts the top
on the path, plain ids) and `shop` (src layout reached through the repository's own root
conftest.py, a fixture from it, a base test class, parametrized ids with spaces, a unittest class
and a test that injects a mock)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from tests.helpers import GOLD, HIDDEN_FILES, REPO_FILES


@dataclass(frozen=True)
class Layout:
    name: str
    repo: dict[str, str]
    hidden: dict[str, str]
    gold: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    pkg_dir: str  # where the package under test lives
    init_line: str  # the first line of its __init__.py, for patches that add an import
    buggy: str  # the module with the bug, its path
    correct: str  # the body of the fixed function, for cheats that swap it in under test
    broken: str
    partial: str  # a plausible partial fix of `buggy` (alone it leaves a required test failing)


CALC = Layout(
    name="calc", repo=REPO_FILES, hidden=HIDDEN_FILES, gold=GOLD,
    fail_to_pass=("tests/test_hidden.py::test_add",),
    pass_to_pass=("tests/test_visible.py::test_zero", "tests/test_hidden.py::test_zero_hidden"),
    pkg_dir="calc", init_line="from calc.ops import add", buggy="calc/ops.py",
    correct="def add(a, b):\n    return a + b\n", broken="def add(a, b):\n    return a - b\n",
    partial="def add(a, b):\n    # negative operands were subtracted twice\n"
            "    return a + b if b < 0 else a - b\n",
)

_SHOP_REPO = {
    "conftest.py": textwrap.dedent("""\
        import pathlib
        import sys

        import pytest

        sys.path.insert(0, str(pathlib.Path(__file__).parent / "src"))


        @pytest.fixture
        def rate():
            return 10
        """),
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "src/shop/__init__.py": "from shop.price import discount\n",
    "src/shop/price.py": "def discount(price, pct):\n    return price + pct\n",
    "src/shop/checkout.py": ("from shop.price import discount\n\n\n"
                             "def charge(gateway, price, pct):\n    gateway.pay(discount(price, pct))\n"),
    "tests/__init__.py": "",
    "tests/base.py": textwrap.dedent("""\
        from shop.price import discount


        class PriceChecks:
            def test_zero_pct(self):
                assert discount(100, 0) == 100
        """),
    "tests/test_visible.py": textwrap.dedent("""\
        import pytest

        from shop.price import discount
        from tests.base import PriceChecks


        class TestPrices(PriceChecks):
            pass


        @pytest.mark.parametrize("price", [0, 100])
        def test_no_discount(price):
            assert discount(price, 0) == price
        """),
}
_SHOP_HIDDEN = {
    "tests/test_price_hidden.py": textwrap.dedent("""\
        import unittest
        from unittest import mock

        import pytest

        from shop.checkout import charge
        from shop.price import discount


        @pytest.mark.parametrize("price,pct,want", [(100, 10, 90), (200, 50, 100)],
                                 ids=["ten pct", "half"])
        def test_discount(price, pct, want):
            assert discount(price, pct) == want


        def test_uses_fixture(rate):
            assert discount(100, rate) == 90


        class TestRounding(unittest.TestCase):
            def test_rounds_down(self):
                self.assertEqual(discount(99, 50), 49)


        def test_charges_the_discounted_price():
            gateway = mock.Mock()
            charge(gateway, 100, 10)
            gateway.pay.assert_called_once_with(90)
        """),
}
_SHOP_GOLD = textwrap.dedent("""\
    diff --git a/src/shop/price.py b/src/shop/price.py
    --- a/src/shop/price.py
    +++ b/src/shop/price.py
    @@ -1,2 +1,2 @@
     def discount(price, pct):
    -    return price + pct
    +    return price * (100 - pct) // 100
    """)
SHOP = Layout(
    name="shop", repo=_SHOP_REPO, hidden=_SHOP_HIDDEN, gold=_SHOP_GOLD,
    fail_to_pass=("tests/test_price_hidden.py::test_discount[ten pct]",
                  "tests/test_price_hidden.py::test_discount[half]",
                  "tests/test_price_hidden.py::test_uses_fixture",
                  "tests/test_price_hidden.py::TestRounding::test_rounds_down",
                  "tests/test_price_hidden.py::test_charges_the_discounted_price"),
    pass_to_pass=("tests/test_visible.py::TestPrices::test_zero_pct",
                  "tests/test_visible.py::test_no_discount[0]",
                  "tests/test_visible.py::test_no_discount[100]"),
    pkg_dir="src/shop", init_line="from shop.price import discount", buggy="src/shop/price.py",
    correct="def discount(price, pct):\n    return price * (100 - pct) // 100\n",
    broken="def discount(price, pct):\n    return price + pct\n",
    partial="def discount(price, pct):\n    # a discount is taken off, not added\n"
            "    return price - pct\n",
)
LAYOUTS = (CALC, SHOP)
