import json

import pytest

from tagexport import Catalog, Item, normalize_tag, normalize_tags, tag_counts, to_csv, to_json


def test_normalize_tag_basic():
    assert normalize_tag("Summer Sale") == "summer-sale"
    assert normalize_tag("  #Linen ") == "linen"
    with pytest.raises(ValueError):
        normalize_tag("  # ")


def test_normalize_tags_from_string():
    assert normalize_tags("red, Blue ,,red") == {"red", "blue"}


def test_item_tags_are_deduplicated():
    item = Item("sku-1", "Shirt", ["Sale", "sale", "#SALE"])
    assert item.tags == {"sale"}
    assert item.add_tag("New In") == "new-in"
    assert item.has_tag("new in")
    assert item.remove_tag("SALE")
    assert not item.remove_tag("sale")


def test_catalog_rejects_duplicates_and_filters():
    catalog = Catalog()
    catalog.add("a", "A", ["x"])
    catalog.add("b", "B", ["y", "x"])
    with pytest.raises(ValueError):
        catalog.add("a", "again")
    assert [item.id for item in catalog.tagged("X")] == ["a", "b"]
    assert sorted(catalog.all_tags()) == ["x", "y"]


def test_tag_counts_sorted_by_use():
    catalog = Catalog()
    catalog.add("1", "One", ["b", "a"])
    catalog.add("2", "Two", ["a"])
    assert tag_counts(catalog) == {"a": 2, "b": 1}


def test_csv_and_json_single_tag():
    catalog = Catalog()
    catalog.add("1", "Linen shirt", ["Linen"])
    assert to_csv(catalog) == "id,title,tags\n1,Linen shirt,linen\n"
    assert json.loads(to_json(catalog)) == [{"id": "1", "title": "Linen shirt", "tags": ["linen"]}]
