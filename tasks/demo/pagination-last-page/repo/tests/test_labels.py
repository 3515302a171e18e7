from pagekit import Paginator, page_summary, showing_label


def test_showing_label_middle_page():
    paginator = Paginator(list(range(47)), per_page=10)
    assert showing_label(paginator.page(2)) == "Showing 11-20 of 47 results"


def test_showing_label_last_partial_page():
    paginator = Paginator(list(range(47)), per_page=10)
    assert showing_label(paginator.page(5), noun="orders") == "Showing 41-47 of 47 orders"


def test_showing_label_empty():
    paginator = Paginator([], per_page=10)
    assert showing_label(paginator.page(1)) == "No results"


def test_page_summary():
    paginator = Paginator(list(range(12)), per_page=5, orphans=2)
    summary = page_summary(paginator.page(2))
    assert summary == {
        "page": 2,
        "num_pages": 2,
        "count": 12,
        "start": 6,
        "end": 12,
        "has_next": False,
        "has_previous": True,
    }
