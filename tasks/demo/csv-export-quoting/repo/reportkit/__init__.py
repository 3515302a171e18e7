"""reportkit: declarative CSV exports."""

from .dialect import EXCEL, EXCEL_SEMICOLON, TSV, UNIX, ExportDialect, Quoting
from .report import Column, Report
from .writer import CsvWriter, ExportError

__all__ = [
    "Column",
    "CsvWriter",
    "EXCEL",
    "EXCEL_SEMICOLON",
    "ExportDialect",
    "ExportError",
    "Quoting",
    "Report",
    "TSV",
    "UNIX",
]

__version__ = "1.3.0"
