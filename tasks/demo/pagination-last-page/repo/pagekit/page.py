"""The :class:`Page` object returned by :meth:`Paginator.page`."""

from collections.abc import Sequence


class Page(Sequence):
    """A single page of results.

    A page behaves like a read-only sequence over the objects it holds and
    also knows its position within its :class:`~pagekit.Paginator`.
    """

    def __init__(self, object_list, number, paginator):
        self.object_list = object_list
        self.number = number
        self.paginator = paginator

    def __repr__(self):
        return "<Page %s of %s>" % (self.number, self.paginator.num_pages)

    def __len__(self):
        return len(self.object_list)

    def __getitem__(self, index):
        if not isinstance(index, (int, slice)):
            raise TypeError(
                "Page indices must be integers or slices, not %s."
                % type(index).__name__
            )
        # The object list may be a lazy sequence; materialise it once so that
        # repeated indexing does not re-evaluate it.
        if not isinstance(self.object_list, list):
            self.object_list = list(self.object_list)
        return self.object_list[index]

    # -- navigation -------------------------------------------------------

    def has_next(self):
        return self.number < self.paginator.num_pages

    def has_previous(self):
        return self.number > 1

    def has_other_pages(self):
        return self.has_previous() or self.has_next()

    def next_page_number(self):
        return self.paginator.validate_number(self.number + 1)

    def previous_page_number(self):
        return self.paginator.validate_number(self.number - 1)

    # -- positions ----------------------------------------------------------

    def start_index(self):
        """Return the 1-based index of the first object on this page.

        Returns ``0`` when the paginator holds no objects at all.
        """
        if self.paginator.count == 0:
            return 0
        return (self.paginator.per_page * (self.number - 1)) + 1

    def end_index(self):
        """Return the 1-based index of the last object on this page."""
        if self.number == self.paginator.num_pages:
            return self.paginator.count
        return self.number * self.paginator.per_page
