import pytest

from layerconf import ConversionError, to_bool, to_int, to_list


def test_to_bool_strings():
    for text in ["1", "true", "Yes", " ON "]:
        assert to_bool(text) is True
    for text in ["0", "false", "No", "off", ""]:
        assert to_bool(text) is False
    with pytest.raises(ConversionError):
        to_bool("maybe")


def test_to_int_and_list():
    assert to_int(" 8_080 ") == 8080
    assert to_int("0x1F") == 31
    with pytest.raises(ConversionError):
        to_int(True)
    assert to_list("a, b,,c") == ["a", "b", "c"]
