"""Items and the catalog that holds them."""

from .normalize import normalize_tag, normalize_tags


class Item:
    """A catalog entry: an id, a title and a set of normalised tags."""

    def __init__(self, item_id, title, tags=()):
        if not item_id:
            raise ValueError("item id must not be empty")
        self.id = str(item_id)
        self.title = title
        self.tags = normalize_tags(tags)

    def add_tag(self, label):
        """Add a tag (normalised); return the stored form."""
        tag = normalize_tag(label)
        self.tags.add(tag)
        return tag

    def remove_tag(self, label):
        """Remove a tag if present; return True if it was there."""
        tag = normalize_tag(label)
        if tag in self.tags:
            self.tags.discard(tag)
            return True
        return False

    def has_tag(self, label):
        return normalize_tag(label) in self.tags

    def __repr__(self):
        return f"Item({self.id!r}, {self.title!r}, tags={sorted(self.tags)!r})"


class Catalog:
    """An ordered collection of items, keyed by id."""

    def __init__(self):
        self._items = {}

    def add(self, item_id, title, tags=()):
        """Create and store an item; raises ValueError on a duplicate id."""
        item = Item(item_id, title, tags)
        if item.id in self._items:
            raise ValueError(f"duplicate item id: {item.id!r}")
        self._items[item.id] = item
        return item

    def get(self, item_id):
        return self._items[str(item_id)]

    def __iter__(self):
        return iter(self._items.values())

    def __len__(self):
        return len(self._items)

    def all_tags(self):
        """Return the set of every tag used by at least one item."""
        tags = set()
        for item in self:
            tags |= item.tags
        return tags

    def tagged(self, label):
        """Return the items carrying ``label``, in insertion order."""
        tag = normalize_tag(label)
        return [item for item in self if tag in item.tags]
