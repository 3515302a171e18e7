import json

from tagexport import Catalog, Item, normalize_tag, normalize_tags, tag_counts, to_csv, to_json


def test_repeated_whitespace_collapses_to_one_hyphen():
    assert normalize_tag("Machine  Learning") == "machine-learning"
    assert normalize_tag("data\tscience") == "data-science"
    assert normalize_tag(" #Big   Data \n") == "big-data"


def test_differently_spaced_labels_are_one_tag():
    catalog = Catalog()
    catalog.add("1", "Linen shirt", ["Summer  Sale"])
    catalog.add("2", "Straw hat", ["summer sale"])
    catalog.add("3", "Sandals", ["summer\tsale"])
    assert tag_counts(catalog) == {"summer-sale": 3}
    assert [item.id for item in catalog.tagged("Summer Sale")] == ["1", "2", "3"]


def test_csv_row_lists_all_tags():
    catalog = Catalog()
    catalog.add("1", "Shirt", ["red", "blue"])
    assert to_csv(catalog) == "id,title,tags\n1,Shirt,red;blue\n"


def test_json_export_lists_all_tags():
    catalog = Catalog()
    catalog.add("7", "Tote bag", ["cotton", "summer"])
    assert json.loads(to_json(catalog))[0]["tags"] == ["cotton", "summer"]


def test_all_tags_listing():
    catalog = Catalog()
    catalog.add("1", "Mug", ["sale"])
    catalog.add("2", "Cup", ["new in"])
    assert list(catalog.all_tags()) == ["sale", "new-in"]


def test_item_tags_listing():
    item = Item("x", "Scarf", ["gift", "wool"])
    assert list(item.tags) == ["gift", "wool"]


def test_normalize_tags_listing():
    assert list(normalize_tags("outdoor, travel")) == ["outdoor", "travel"]


# Each lists a set: its order follows the process's string hash seed, so with the fix these pass
# or fail from run to run (without it they always fail): the gold gate must call the task flaky.
def test_spaced_labels_listed_once_summer():
    catalog = Catalog()
    catalog.add("1", "Mug", ["Summer  Sale", "gift"])
    catalog.add("2", "Cup", ["summer sale"])
    assert list(catalog.all_tags()) == ["summer-sale", "gift"]


def test_spaced_labels_listed_once_winter():
    catalog = Catalog()
    catalog.add("1", "Coat", ["Winter\tWear", "wool"])
    catalog.add("2", "Hat", ["winter wear"])
    assert list(catalog.all_tags()) == ["winter-wear", "wool"]


def test_spaced_labels_listed_once_garden():
    catalog = Catalog()
    catalog.add("1", "Spade", ["Garden   Tools", "steel"])
    assert list(catalog.all_tags()) == ["garden-tools", "steel"]


def test_spaced_labels_listed_once_kitchen():
    catalog = Catalog()
    catalog.add("1", "Pan", ["Kitchen  Ware", "iron"])
    assert list(catalog.all_tags()) == ["kitchen-ware", "iron"]
