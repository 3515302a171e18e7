"""The fault battery of benchmarks/check_faults.py: the project a fault is injected into, the
checks of its promise, and the faults, one module per family."""

from __future__ import annotations

from benchmarks._faults._project import BARE, Fault, Out, Project, Verdict, copy_project


def battery() -> list[Fault]:
    """Every fault, in the order they are tried."""
    from benchmarks._faults import _env, _files, _records, _runtime

    return [*_records.FAULTS, *_files.FAULTS, *_env.FAULTS, *_runtime.FAULTS]


__all__ = ["BARE", "Fault", "Out", "Project", "Verdict", "battery", "copy_project"]
