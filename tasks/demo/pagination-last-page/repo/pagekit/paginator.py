"""The :class:`Paginator` splits a sequence into numbered pages."""

from functools import cached_property

from .exceptions import EmptyPage, PageNotAnInteger
from .page import Page

#: Marker yielded by :meth:`Paginator.get_elided_page_range` for gaps.
ELLIPSIS = "\u2026"


class Paginator:
    """Split ``object_list`` into pages of ``per_page`` items.

    :param object_list: any sequence supporting ``len()`` (or ``count()``)
        and slicing.
    :param per_page: the maximum number of items on a page.
    :param orphans: if the last page would hold ``orphans`` items or fewer,
        those items are added to the previous page instead, so that users
        never see a nearly-empty last page.  Must be smaller than
        ``per_page``.
    :param allow_empty_first_page: whether page 1 may be requested when
        ``object_list`` is empty.
    """

    def __init__(self, object_list, per_page, orphans=0, allow_empty_first_page=True):
        self.object_list = object_list
        self.per_page = int(per_page)
        self.orphans = int(orphans)
        self.allow_empty_first_page = allow_empty_first_page
        if self.per_page < 1:
            raise ValueError("per_page must be a positive integer.")
        if self.orphans < 0:
            raise ValueError("orphans must not be negative.")
        if self.orphans >= self.per_page:
            raise ValueError("orphans must be less than per_page.")

    def __iter__(self):
        for page_number in self.page_range:
            yield self.page(page_number)

    # -- validation -------------------------------------------------------

    def validate_number(self, number):
        """Return ``number`` as an int if it names an existing page.

        :raises PageNotAnInteger: if ``number`` is not integral.
        :raises EmptyPage: if ``number`` is out of range.
        """
        try:
            if isinstance(number, float) and not number.is_integer():
                raise ValueError
            number = int(number)
        except (TypeError, ValueError):
            raise PageNotAnInteger("That page number is not an integer")
        if number < 1:
            raise EmptyPage("That page number is less than 1")
        if number > self.num_pages:
            if number == 1 and self.allow_empty_first_page:
                pass
            else:
                raise EmptyPage("That page contains no results")
        return number

    def get_page(self, number):
        """Like :meth:`page`, but never raises for a bad page number.

        A non-integer falls back to the first page and an out-of-range
        number to the last page.
        """
        try:
            number = self.validate_number(number)
        except PageNotAnInteger:
            number = 1
        except EmptyPage:
            number = self.num_pages
        return self.page(number)

    def page(self, number):
        """Return the :class:`Page` for the given 1-based page number."""
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        return Page(self.object_list[bottom:top], number, self)

    # -- sizes ------------------------------------------------------------

    @cached_property
    def count(self):
        """The total number of objects, across all pages."""
        c = getattr(self.object_list, "count", None)
        if callable(c) and not isinstance(self.object_list, (list, tuple, str, range)):
            return c()
        return len(self.object_list)

    @cached_property
    def num_pages(self):
        """The total number of pages."""
        if self.count == 0:
            return 1 if self.allow_empty_first_page else 0
        full_pages, remainder = divmod(self.count, self.per_page)
        pages = full_pages + (1 if remainder else 0)
        # Fold a short trailing page into the previous one.
        if self.orphans and pages > 1 and remainder <= self.orphans:
            pages -= 1
        return pages

    @property
    def page_range(self):
        """A 1-based range of the page numbers, e.g. ``range(1, 6)``."""
        return range(1, self.num_pages + 1)

    def get_elided_page_range(self, number=1, *, on_each_side=3, on_ends=2):
        """Yield page numbers for a navigation bar, eliding long stretches.

        Gaps are represented by :data:`ELLIPSIS`.  When there are few pages
        every page number is yielded.
        """
        number = self.validate_number(number)
        if self.num_pages <= (on_each_side + on_ends) * 2:
            yield from self.page_range
            return

        if number > (1 + on_each_side + on_ends) + 1:
            yield from range(1, on_ends + 1)
            yield ELLIPSIS
            yield from range(number - on_each_side, number + 1)
        else:
            yield from range(1, number + 1)

        if number < (self.num_pages - on_each_side - on_ends) - 1:
            yield from range(number + 1, number + on_each_side + 1)
            yield ELLIPSIS
            yield from range(self.num_pages - on_ends + 1, self.num_pages + 1)
        else:
            yield from range(number + 1, self.num_pages + 1)
