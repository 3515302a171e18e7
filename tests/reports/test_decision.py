"""Reports: one named deciding test per comparison, Holm across the report's comparisons."""

from __future__ import annotations

from pathlib import Path

from evaluator.reports import console_text, render_report, report_summary
from tests.reports._world import World

TASKS = tuple(f"t{i:02d}" for i in range(1, 21))
HALF = dict.fromkeys(TASKS, "F") | dict.fromkeys(TASKS[:10], "R")


def _flip(on: tuple[str, ...], off: tuple[str, ...]) -> dict[str, str]:
    """The baseline's outcomes with tasks `on` now resolved and `off` now failed."""
    return HALF | dict.fromkeys(on, "R") | dict.fromkeys(off, "F")


def test_twelve_tasks_ahead_on_four_is_reported_within_noise(tmp_path: Path) -> None:
    w = World(tmp_path, TASKS[:12])
    w.outcomes("base", dict.fromkeys(TASKS[:12], "F"))
    w.outcomes("cand", dict.fromkeys(TASKS[:12], "F") | dict.fromkeys(TASKS[:4], "R"))
    s, files = render_report("mini", out_root=tmp_path / "out", **w.kwargs)
    (c,) = s["comparisons"]
    assert (c["verdict"], c["test"], c["p_value"], c["lo"]) == ("within noise", "mcnemar_exact",
                                                                0.125, 0.0)
    text = console_text(s)
    assert "WITHIN NOISE" in text and "BETTER" not in text and "Holm" not in text
    assert "decided by mcnemar_exact: p=0.1250" in files["report.md"].read_text()


def test_five_equal_candidates_are_one_holm_family(tmp_path: Path) -> None:
    names = ("base", "c1", "c2", "c3", "c4", "c5")
    w = World(tmp_path, TASKS, agents=names)
    w.outcomes("base", HALF)
    w.outcomes("c1", _flip(TASKS[10:16], ()))  # ahead on 6 by chance: p = 2/64 alone
    for k, name in enumerate(names[2:]):  # ahead on two tasks and behind on two
        w.outcomes(name, _flip(TASKS[10 + 2 * k:12 + 2 * k], TASKS[2 * k:2 * k + 2]))
    s, files = render_report("mini", out_root=tmp_path / "out", **w.kwargs)
    assert s["family"] == {"size": 5, "method": "holm", "alpha": 0.05, "decision": "fixed"}
    assert [c["verdict"] for c in s["comparisons"]] == ["within noise"] * 5
    (c1,) = [c for c in s["comparisons"] if c["b"]["agent"] == "c1"]
    assert (c1["p_value"], c1["p_adjusted"], c1["level"]) == (0.03125, 0.15625, 0.01)
    assert "adjusted p=0.1562 (unadjusted p=0.0312)" in console_text(s)
    assert "the 5 comparisons are one family: Holm" in files["report.md"].read_text()
    assert "Holm" in files["index.html"].read_text()


def test_sequential_decision_is_named_in_the_report(tmp_path: Path) -> None:
    w = World(tmp_path, TASKS)
    w.outcomes("base", HALF)
    w.outcomes("cand", _flip(TASKS[10:16], ()))
    fixed = report_summary("mini", **w.kwargs)["comparisons"][0]
    seq = report_summary("mini", decision="sequential", **w.kwargs)
    (c,) = seq["comparisons"]
    assert fixed["verdict"] == "better" and seq["decision"] == "sequential"
    assert (c["test"], c["fixed_test"], c["verdict"]) == ("mixture_sprt", "mcnemar_exact",
                                                          "within noise")
    assert "decided by mixture_sprt (always valid)" in console_text(seq)


def _method_sentences(files: dict[str, Path]) -> list[str]:
    out = []
    for name in ("report.md", "index.html"):
        text = " ".join(files[name].read_text().split())
        start = text.index("Each verdict has one deciding test")
        out.append(text[start:text.index("See ", start)])
    return out


def test_the_prose_names_the_test_that_decided_with_several_samples(tmp_path: Path) -> None:
    w = World(tmp_path, TASKS[:10], samples=2)
    w.outcomes("base", dict.fromkeys(TASKS[:10], "FF"))
    w.outcomes("cand", dict.fromkeys(TASKS[:10], "FF") | dict.fromkeys(TASKS[:7], "RR"))
    s, files = render_report("mini", out_root=tmp_path / "out", **w.kwargs)
    (c,) = s["comparisons"]
    assert (c["test"], c["verdict"]) == ("sign_flip_permutation", "better")
    for sentence in _method_sentences(files):
        assert "the paired sign-flip test on per-task differences decides" in sentence
        assert "McNemar" not in sentence and "bootstrap decides" not in sentence
    assert "decided by sign_flip_permutation" in files["report.md"].read_text()


def test_the_prose_names_mcnemar_alone_with_one_sample(tmp_path: Path) -> None:
    w = World(tmp_path, TASKS)
    w.outcomes("base", HALF)
    w.outcomes("cand", _flip(TASKS[10:16], ()))
    _, files = render_report("mini", out_root=tmp_path / "out", **w.kwargs)
    for sentence in _method_sentences(files):
        assert "the exact McNemar test decides" in sentence and "sign-flip" not in sentence


def test_five_tasks_within_noise_need_the_tasks_the_exact_test_needs(tmp_path: Path) -> None:
    # Exact p = 0.0625 on 5 tasks: no exact test at 0.05 rejects below 6 tasks.
    w = World(tmp_path, TASKS[:5], samples=2)
    w.outcomes("base", dict.fromkeys(TASKS[:5], "FF"))
    w.outcomes("cand", dict.fromkeys(TASKS[:5], "RR"))
    s = report_summary("mini", **w.kwargs)
    (c,) = s["comparisons"]
    assert (c["verdict"], c["p_value"], c["tasks_needed"]) == ("within noise", 0.0625, 6)
    assert ("an effect this size needs about 6 tasks for 80% power with the paired sign-flip "
            "test at alpha 0.05") in console_text(s)
    seq = console_text(report_summary("mini", decision="sequential", **w.kwargs))
    assert "needs at least 6 tasks for 80% power: the paired sign-flip test alone" in seq
