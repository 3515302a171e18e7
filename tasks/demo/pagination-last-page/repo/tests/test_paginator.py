import pytest

from pagekit import EmptyPage, PageNotAnInteger, Paginator


def test_first_page():
    paginator = Paginator(list(range(1, 26)), per_page=10)
    page = paginator.page(1)
    assert list(page) == list(range(1, 11))
    assert page.has_next()
    assert not page.has_previous()


def test_num_pages_with_partial_last_page():
    paginator = Paginator(list(range(25)), per_page=10)
    assert paginator.num_pages == 3
    assert list(paginator.page(3)) == [20, 21, 22, 23, 24]


def test_exact_multiple_without_orphans():
    paginator = Paginator(list(range(30)), per_page=10)
    assert paginator.num_pages == 3
    assert list(paginator.page(3)) == list(range(20, 30))


def test_orphans_fold_short_last_page():
    paginator = Paginator(list(range(23)), per_page=10, orphans=3)
    assert paginator.num_pages == 2
    assert list(paginator.page(2)) == list(range(10, 23))


def test_empty_list_allows_first_page():
    paginator = Paginator([], per_page=10)
    assert paginator.num_pages == 1
    assert list(paginator.page(1)) == []


def test_empty_list_without_empty_first_page():
    paginator = Paginator([], per_page=10, allow_empty_first_page=False)
    assert paginator.num_pages == 0
    with pytest.raises(EmptyPage):
        paginator.page(1)


def test_invalid_page_numbers():
    paginator = Paginator(list(range(15)), per_page=5)
    with pytest.raises(PageNotAnInteger):
        paginator.validate_number("abc")
    with pytest.raises(EmptyPage):
        paginator.validate_number(0)
    with pytest.raises(EmptyPage):
        paginator.validate_number(4)
    assert paginator.validate_number("2") == 2


def test_get_page_falls_back():
    paginator = Paginator(list(range(15)), per_page=5)
    assert paginator.get_page("nope").number == 1
    assert paginator.get_page(99).number == 3


def test_orphans_must_be_smaller_than_per_page():
    with pytest.raises(ValueError):
        Paginator([1, 2, 3], per_page=2, orphans=2)


class TestElidedRange:
    def test_few_pages_not_elided(self):
        paginator = Paginator(list(range(50)), per_page=10)
        assert list(paginator.get_elided_page_range(3)) == [1, 2, 3, 4, 5]

    def test_middle_page_elided_on_both_sides(self):
        paginator = Paginator(list(range(500)), per_page=10)
        assert list(paginator.get_elided_page_range(25)) == [
            1, 2, "\u2026", 22, 23, 24, 25, 26, 27, 28, "\u2026", 49, 50,
        ]
