import csv
import io

import pytest

from reportkit import EXCEL, EXCEL_SEMICOLON, TSV, UNIX, CsvWriter, ExportDialect, ExportError, Quoting
from reportkit.writer import rows_to_csv


def read_back(text, dialect):
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=dialect.delimiter, quotechar=dialect.quotechar))


def test_plain_rows():
    assert rows_to_csv([["a", 1, None], ["b", 2.5, "x"]]) == "a,1,\r\nb,2.5,x\r\n"


def test_field_with_delimiter_is_quoted():
    text = rows_to_csv([["Smith, John", "London"]])
    assert text == '"Smith, John",London\r\n'
    assert read_back(text, EXCEL) == [["Smith, John", "London"]]


def test_semicolon_dialect_leaves_commas_alone():
    text = rows_to_csv([["1,5", "a;b"]], EXCEL_SEMICOLON)
    assert text == '1,5;"a;b"\r\n'


def test_quote_all_doubles_quotes():
    text = rows_to_csv([['say "hi"', 3]], UNIX)
    assert text == '"say ""hi""","3"\n'
    assert read_back(text, UNIX) == [['say "hi"', "3"]]


def test_nonnumeric_quotes_only_text():
    dialect = EXCEL.with_options(quoting=Quoting.NONNUMERIC)
    assert rows_to_csv([["abc", 12, None]], dialect) == '"abc",12,""\r\n'


def test_quoting_none_refuses_ambiguous_field():
    dialect = TSV.with_options(quoting=Quoting.NONE)
    buf = io.StringIO()
    writer = CsvWriter(buf, dialect)
    writer.write_row(["a b", "c"])
    with pytest.raises(ExportError):
        writer.write_row(["a\tb"])
    assert writer.rows_written == 1


def test_invalid_dialects_are_rejected():
    with pytest.raises(ValueError):
        ExportDialect("bad", delimiter='"')
    with pytest.raises(ValueError):
        ExportDialect("bad", lineterminator="\r")
