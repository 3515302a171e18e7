"""Plain-text formatting shared by the console, report.md and index.html (as jinja2 filters)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def interval(lo: float | None, hi: float | None) -> str:
    return "" if lo is None or hi is None else f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def pp(x: float) -> str:
    """A difference of rates in percentage points, always signed."""
    return f"{100 * x:+.1f} pp"


def usd(x: float | None) -> str:
    return "n/a" if x is None else f"${x:.4f}"


def pvalue(p: float, line: float | None = None) -> str:
    """A p-value to four decimals, or more where four would put it on the other side of `line`
    (the level it is judged at): 0.0499996 must not read 0.0500 beside "better"."""
    if p < 1e-4 and (line is None or line > 1e-4):
        return "p<0.0001"
    for places in range(4, 13):
        text = f"{p:.{places}f}"
        if line is None or (float(text) < line) == (p < line):
            return f"p={text}"
    return f"p={p!r}"


def bound(x: float) -> str:
    """An interval end in signed percentage points; a non-zero end never reads as zero."""
    text = pp(x)
    if x != 0.0 and float(text.split()[0]) == 0.0:
        text = f"{100 * x:+.2g} pp"
    return text


def level_pct(level: float) -> str:
    """The confidence of an interval at `level`: 0.05 -> 95%, 0.0125 -> 98.75%."""
    conf = 100 * (1 - level)
    return f"{conf:.0f}%" if abs(conf - round(conf)) < 1e-9 else f"{conf:.2f}".rstrip("0") + "%"


def label(row: dict[str, Any]) -> str:
    """An agent's name, marked when its model is simulated."""
    return f"{row['agent']} (simulated)" if row.get("simulated") else str(row["agent"])


def pass_ks(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The pass@k columns present, in k order."""
    keys = [k for k in (rows[0] if rows else {}) if k.startswith("pass@")]
    return sorted(keys, key=lambda k: int(k.split("@")[1]))


def leaderboard_table(rows: Sequence[dict[str, Any]]) -> list[list[str]]:
    """Header plus one line of cells per agent."""
    ks = pass_ks(rows)
    head = ["agent", "attempts", "resolved", "rate", "95% CI", "policy", "errors", "cost",
            "$/solved", *ks]
    body = [[label(r), str(r["attempts"]), str(r["resolved"]), pct(r["resolve_rate"]),
             interval(r["rate_lo"], r["rate_hi"]), str(r["policy"]), str(r["errors"]),
             *((usd(r["cost_usd"]), usd(r["cost_per_solved_usd"])) if r.get("priced", True)
               else ("unpriced", "unpriced")), *(pct(r[k]) for k in ks)]
            for r in rows]
    return [head, *body]


def format_leaderboard(rows: Sequence[dict[str, Any]]) -> str:
    table = leaderboard_table(rows)
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    return "\n".join("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                               for i, (cell, w) in enumerate(zip(line, widths, strict=True)))
                     .rstrip() for line in table)


def comparison_title(c: dict[str, Any]) -> str:
    return f"{label(c['b'])} vs {label(c['a'])}"


def comparison_lines(c: dict[str, Any]) -> list[str]:
    """The comparison in a few lines, or REFUSED and every reason (and then no number)."""
    if c["refused"]:
        return ["REFUSED, not comparable:", *(f"- {r}" for r in c["reasons"])]
    widened = " (joined with zero: the deciding test does not reject)" if c["widened"] else ""
    lines = [
        f"delta {pp(c['delta'])}, {level_pct(c['level'])} interval [{bound(c['lo'])}, "
        f"{bound(c['hi'])}]{widened}: {c['verdict'].upper()}",
        f"{pct(c['mean_b'])} vs {pct(c['mean_a'])} on {c['n_tasks']} shared tasks; "
        f"{c['b']['agent']} ahead on {c['b_only']} task(s), {c['a']['agent']} on {c['a_only']}",
        decided_line(c),
    ]
    if c["decision"] == "fixed":
        lines.append(sequential_line(c))
    lines.append(needed_line(c))
    looked = looks_line(c)
    if looked:
        lines.append(looked)
    return lines


# How the prose names each test (summary.json keeps the identifiers).
TEST_NAMES = {"mcnemar_exact": "the exact McNemar test",
              "sign_flip_permutation": "the paired sign-flip test",
              "mixture_sprt": "the sequential test"}


def needed_line(c: dict[str, Any]) -> str:
    """How many tasks the fixed test that decides (or decides with the sequential one) needs
    for this effect; computed for that exact test, so never fewer than it can reject at."""
    n = c["tasks_needed"]
    if n is None:
        return "no difference to detect"
    fixed = TEST_NAMES.get(c["fixed_test"], c["fixed_test"])
    exact = c["fixed_test"] == "mcnemar_exact"  # summed exactly; the sign-flip one simulated
    if c["decision"] == "sequential":
        return (f"an effect this size needs at least {n} tasks for 80% power: {fixed} alone "
                f"needs {'' if exact else 'about '}that many at alpha {c['alpha']:g}, and the "
                "sequential test must agree")
    return (f"an effect this size needs {'' if exact else 'about '}{n} tasks for 80% power "
            f"with {fixed} at alpha {c['alpha']:g}")


def method_text(summary: dict[str, Any]) -> str | None:
    """Which tests decide this report's verdicts, from the comparisons it holds."""
    made = [c for c in summary.get("comparisons", ()) if not c["refused"]]
    if not made:
        return None
    parts = []
    if any(c["fixed_test"] == "mcnemar_exact" for c in made):
        parts.append("with one sample per task on both sides the exact McNemar test decides and "
                     "the interval is Tango's score interval")
    if any(c["fixed_test"] == "sign_flip_permutation" for c in made):
        parts.append("with several samples per task the paired sign-flip test on per-task "
                     "differences decides and the interval is the task-clustered bootstrap's, "
                     "read with that test's decision")
    text = ("Each verdict has one deciding test, named beside it, and agrees with the p-value "
            "and the interval shown: " + "; ".join(parts) + ".")
    if summary.get("decision") == "sequential":
        text += (" Here the always-valid sequential test decides together with that test (the "
                 "larger of the two p-values), so the verdicts stay valid however often the "
                 "comparisons were looked at.")
    return text


def decided_line(c: dict[str, Any]) -> str:
    """Which test decides the verdict, and its p-value (Holm-adjusted in a family)."""
    if c["decision"] == "sequential":
        test = (f"{c['test']} (always valid) and {c['fixed_test']}: the larger of anytime "
                f"{pvalue(c['p_anytime'])} and {pvalue(c['p_fixed'])}")
    else:
        test = c["test"]
    if c["family_size"] > 1:
        return (f"decided by {test}, Holm over {c['family_size']} comparisons: adjusted "
                f"{pvalue(c['p_adjusted'], c['alpha'])} (unadjusted "
                f"{pvalue(c['p_value'], c['level'])}), family-wise alpha {c['alpha']:g}")
    return f"decided by {test}: {pvalue(c['p_value'], c['alpha'])}, alpha {c['alpha']:g}"


def sequential_line(c: dict[str, Any]) -> str:
    return (f"sequential test (always valid, not deciding): e-value {c['e_value']:.3g} from "
            f"{c['pairs_b_wins'] + c['pairs_a_wins']} disagreeing sample pairs "
            f"({c['pairs_b_wins']} won by {c['b']['agent']}), anytime {pvalue(c['p_anytime'])}")


def looks_line(c: dict[str, Any]) -> str | None:
    """Said when this verdict comes after earlier looks at the same comparison."""
    looks = c.get("looks") or {}
    if not looks.get("count") or looks["count"] < 2:
        return None
    earlier = ", ".join(str(n) for n in looks["earlier_samples"])
    head = (f"look {looks['count']} at this comparison as samples grew (earlier at {earlier} "
            f"graded samples, now {looks['samples']}): ")
    if c["decision"] == "sequential":
        return head + "the sequential test decides, and stays valid however often one looks"
    return head + ("after repeated looks a fixed-sample verdict is wrong more often than alpha "
                   "says; the sequential test stays valid (`--sequential` lets it decide)")


def family_line(summary: dict[str, Any]) -> str | None:
    """How the report's verdicts are decided together, when there is more than one."""
    fam = summary.get("family") or {}
    if fam.get("size", 0) < 2:
        return None
    return (f"the {fam['size']} comparisons are one family: Holm's procedure keeps the chance of "
            f"any false better or worse among them at {fam['alpha']:g}; each gives its "
            f"Holm-adjusted p-value and the unadjusted one")


def left_out_lines(c: dict[str, Any]) -> list[str]:
    return [f"{tid}: {why}" for tid, why in sorted(c["left_out"].items())]


def format_comparison(c: dict[str, Any]) -> str:
    lines = [comparison_title(c), *(f"  {line}" for line in comparison_lines(c))]
    left = left_out_lines(c)
    if left:
        lines.append(f"  left out of the pairing ({len(left)}):")
        lines += [f"    {line}" for line in left]
    return "\n".join(lines)
