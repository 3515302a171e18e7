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


def pvalue(p: float) -> str:
    return "p<0.0001" if p < 1e-4 else f"p={p:.4f}"


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
             usd(r["cost_usd"]), usd(r["cost_per_solved_usd"]), *(pct(r[k]) for k in ks)]
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
    needed = (f"an effect this size needs about {c['tasks_needed']} tasks for 80% power"
              if c["tasks_needed"] is not None else "no difference to detect")
    level = round(100 * (1 - c["alpha"]))
    lines = [
        f"delta {pp(c['delta'])}, {level}% interval [{pp(c['lo'])}, {pp(c['hi'])}]: "
        f"{c['verdict'].upper()}",
        f"{pct(c['mean_b'])} vs {pct(c['mean_a'])} on {c['n_tasks']} shared tasks; "
        f"{c['test']} {pvalue(c['p_value'])}; {c['b']['agent']} ahead on {c['b_only']} "
        f"task(s), {c['a']['agent']} on {c['a_only']}",
        needed,
    ]
    if c.get("caution"):
        lines.append(c["caution"])
    return lines


def left_out_lines(c: dict[str, Any]) -> list[str]:
    return [f"{tid}: {why}" for tid, why in sorted(c["left_out"].items())]


def format_comparison(c: dict[str, Any]) -> str:
    lines = [comparison_title(c), *(f"  {line}" for line in comparison_lines(c))]
    left = left_out_lines(c)
    if left:
        lines.append(f"  left out of the pairing ({len(left)}):")
        lines += [f"    {line}" for line in left]
    return "\n".join(lines)
