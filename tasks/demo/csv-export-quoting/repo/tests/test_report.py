import csv
import datetime as dt
import io
from types import SimpleNamespace

import pytest

from reportkit import Column, Report


@pytest.fixture
def report():
    return Report(
        [
            Column("id", kind="int"),
            Column("customer.name", header="customer"),
            Column("total", kind="decimal"),
            Column("paid", kind="bool"),
            Column("created", kind="date"),
        ]
    )


ROWS = [
    {"id": 1, "customer": {"name": "Acme"}, "total": "12.5", "paid": True, "created": dt.date(2024, 1, 2)},
    {"id": 2, "customer": {"name": "Globex"}, "total": 7, "paid": False, "created": None},
]


def test_to_csv_with_header(report):
    assert report.to_csv(ROWS) == (
        "id,customer,total,paid,created\r\n"
        "1,Acme,12.50,yes,2024-01-02\r\n"
        "2,Globex,7.00,no,\r\n"
    )


def test_objects_and_missing_values(report):
    row = SimpleNamespace(id=3, customer=None, total=None, paid=None, created=None)
    assert report.to_csv([row], "unix").splitlines()[1] == '"3","","","",""'


def test_export_writes_file(report, tmp_path):
    path = tmp_path / "out.csv"
    assert report.export(path, ROWS) == 2
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == report.headers
    assert rows[2] == ["2", "Globex", "7.00", "no", ""]


def test_duplicate_headers_rejected():
    with pytest.raises(ValueError):
        Report([Column("a"), Column("b", header="a")])


def test_multiline_notes_round_trip():
    report = Report([Column("id", kind="int"), Column("note")])
    text = report.to_csv([{"id": 1, "note": "line one\nline two"}])
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows == [["id", "note"], ["1", "line one\nline two"]]
