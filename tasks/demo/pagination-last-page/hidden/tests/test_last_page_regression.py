from pagekit import Paginator, showing_label


def test_exact_multiple_with_orphans_has_all_pages():
    paginator = Paginator(list(range(20)), per_page=10, orphans=3)
    assert paginator.num_pages == 2
    assert list(paginator.page_range) == [1, 2]


def test_every_item_reachable_with_orphans():
    for count in range(0, 61):
        for per_page in (3, 5, 10):
            for orphans in range(per_page):
                paginator = Paginator(list(range(count)), per_page, orphans=orphans)
                seen = [item for page in paginator for item in page]
                assert seen == list(range(count)), (count, per_page, orphans)


def test_label_on_last_page_of_exact_multiple():
    paginator = Paginator(list(range(40)), per_page=20, orphans=5)
    first, last = paginator.page(1), paginator.page(2)
    assert showing_label(first) == "Showing 1-20 of 40 results"
    assert showing_label(last) == "Showing 21-40 of 40 results"
    assert first.has_next() and not last.has_next()


def test_short_trailing_page_still_folded():
    paginator = Paginator(list(range(42)), per_page=10, orphans=2)
    assert paginator.num_pages == 4
    assert list(paginator.page(4)) == list(range(30, 42))
    assert showing_label(paginator.page(4)) == "Showing 31-42 of 42 results"


def test_trailing_page_larger_than_orphans_kept():
    paginator = Paginator(list(range(44)), per_page=10, orphans=3)
    assert paginator.num_pages == 5
    assert list(paginator.page(5)) == [40, 41, 42, 43]
