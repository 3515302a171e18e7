"""Human readable labels describing a page."""


def showing_label(page, noun="results", dash="-"):
    """Return a label such as ``"Showing 11-20 of 47 results"``.

    When the paginator is empty, ``"No results"`` (using *noun*) is returned.
    A page holding a single object reads ``"Showing 5 of 5 results"``.
    """
    count = page.paginator.count
    if count == 0:
        return "No %s" % noun
    start, end = page.start_index(), page.end_index()
    if start == end:
        return "Showing %d of %d %s" % (start, count, noun)
    return "Showing %d%s%d of %d %s" % (start, dash, end, count, noun)


def page_summary(page):
    """Return a short dict describing *page*, handy for JSON APIs."""
    paginator = page.paginator
    return {
        "page": page.number,
        "num_pages": paginator.num_pages,
        "count": paginator.count,
        "start": page.start_index(),
        "end": page.end_index(),
        "has_next": page.has_next(),
        "has_previous": page.has_previous(),
    }
