import csv
import io

from reportkit import EXCEL, EXCEL_SEMICOLON, Column, Quoting, Report
from reportkit.writer import rows_to_csv


def read_back(text, dialect=EXCEL):
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=dialect.delimiter, quotechar=dialect.quotechar))


def test_minimal_quoting_doubles_embedded_quotes():
    text = rows_to_csv([['Acme "Best" Ltd', 1]])
    assert text == '"Acme ""Best"" Ltd",1\r\n'
    assert read_back(text) == [['Acme "Best" Ltd', "1"]]


def test_report_round_trips_awkward_fields():
    report = Report([Column("id", kind="int"), Column("customer"), Column("note")])
    rows = [
        {"id": 1, "customer": 'He said "no", twice', "note": '6" pipe\nsecond line'},
        {"id": 2, "customer": '"quoted"', "note": 'ends with a quote"'},
        {"id": 3, "customer": "plain", "note": ""},
    ]
    parsed = read_back(report.to_csv(rows))
    assert parsed == [
        ["id", "customer", "note"],
        ["1", 'He said "no", twice', '6" pipe\nsecond line'],
        ["2", '"quoted"', 'ends with a quote"'],
        ["3", "plain", ""],
    ]


def test_custom_quotechar_is_doubled():
    dialect = EXCEL_SEMICOLON.with_options(quotechar="'")
    text = rows_to_csv([["O'Brien; Sons", "x"]], dialect)
    assert text == "'O''Brien; Sons';x\r\n"
    assert read_back(text, dialect) == [["O'Brien; Sons", "x"]]


def test_nonnumeric_round_trip_with_quotes():
    dialect = EXCEL.with_options(quoting=Quoting.NONNUMERIC)
    text = rows_to_csv([['a "b"', 5]], dialect)
    assert text == '"a ""b""",5\r\n'


def test_carriage_return_fields_are_quoted():
    text = rows_to_csv([["a\rb", "c\r\nd"]])
    assert text == '"a\rb","c\r\nd"\r\n'
    assert read_back(text) == [["a\rb", "c\r\nd"]]
