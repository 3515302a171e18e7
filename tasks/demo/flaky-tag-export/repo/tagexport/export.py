"""Exporters for a :class:`~tagexport.model.Catalog`."""

import csv
import io
import json
from collections import Counter

TAG_SEPARATOR = ";"


def to_csv(catalog):
    """Render the catalog as CSV with columns ``id,title,tags``.

    Tags of an item are joined with :data:`TAG_SEPARATOR`.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["id", "title", "tags"])
    for item in catalog:
        writer.writerow([item.id, item.title, TAG_SEPARATOR.join(item.tags)])
    return buffer.getvalue()


def to_json(catalog, indent=None):
    """Render the catalog as a JSON array of ``{"id", "title", "tags"}`` objects."""
    payload = [{"id": item.id, "title": item.title, "tags": list(item.tags)} for item in catalog]
    return json.dumps(payload, indent=indent)


def tag_counts(catalog):
    """Return ``{tag: number of items}``, most used first (ties by name)."""
    counter = Counter()
    for item in catalog:
        counter.update(item.tags)
    return dict(sorted(counter.items(), key=lambda pair: (-pair[1], pair[0])))
