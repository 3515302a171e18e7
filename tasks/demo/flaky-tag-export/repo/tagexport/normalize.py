"""Normalisation of user-entered tag labels."""

MAX_TAG_LENGTH = 40


def normalize_tag(label):
    """Return the canonical form of a tag label.

    Labels are case-insensitive and words are joined with hyphens, so
    ``"Summer Sale"`` and ``"summer sale"`` are the same tag,
    ``summer-sale``.  A leading ``#`` (as typed in many UIs) is dropped.
    Raises ValueError for labels that are empty after normalisation or
    longer than :data:`MAX_TAG_LENGTH`.
    """
    if not isinstance(label, str):
        raise TypeError(f"tag labels must be strings, got {type(label).__name__}")
    text = label.strip().lstrip("#").strip().lower()
    tag = text.replace(" ", "-")
    if not tag:
        raise ValueError(f"empty tag label: {label!r}")
    if len(tag) > MAX_TAG_LENGTH:
        raise ValueError(f"tag label longer than {MAX_TAG_LENGTH} characters: {label!r}")
    return tag


def normalize_tags(labels):
    """Normalise an iterable of labels into a set of tags."""
    if isinstance(labels, str):
        labels = labels.split(",")
        labels = [label for label in labels if label.strip()]
    return {normalize_tag(label) for label in labels}
