"""pagekit - small pagination helpers for sequences."""

from .exceptions import EmptyPage, InvalidPage, PageNotAnInteger
from .labels import page_summary, showing_label
from .page import Page
from .paginator import ELLIPSIS, Paginator

__all__ = [
    "ELLIPSIS",
    "EmptyPage",
    "InvalidPage",
    "Page",
    "PageNotAnInteger",
    "Paginator",
    "page_summary",
    "showing_label",
]

__version__ = "0.4.1"
