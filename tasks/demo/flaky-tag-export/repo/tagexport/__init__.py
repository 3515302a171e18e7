"""tagexport: a tagged item catalog with CSV/JSON export."""

from .export import tag_counts, to_csv, to_json
from .model import Catalog, Item
from .normalize import normalize_tag, normalize_tags

__all__ = ["Catalog", "Item", "normalize_tag", "normalize_tags", "tag_counts", "to_csv", "to_json"]

__version__ = "0.3.0"
