"""The report's two pictures, drawn the same way every time: fixed sizes, fixed dpi, no
timestamp or software tag in the PNG, and no pyplot (so no global figure state)."""

from __future__ import annotations

import io
from typing import Any

from evaluator.reports._text import label

DPI = 100
_MAX_LABELLED = 80  # tasks
_MAX_INCHES = 60.0
# Blue against orange rather than green against red, so the two outcomes that matter most stay
# apart for colour-blind readers.
COLOURS = {
    "resolved": "#2166ac",
    "partial": "#92c5de",
    "failed": "#e08214",
    "policy": "#762a83",
    "error": "#969696",
    "excluded": "#f0f0f0",
}
VERDICT_COLOURS = {"better": "#2166ac", "worse": "#b35806", "within noise": "#525252"}
LEGEND = {
    "resolved": "resolved (all samples)",
    "partial": "resolved in some samples",
    "failed": "failed",
    "policy": "policy violation",
    "error": "no result (infra error / pending)",
    "excluded": "excluded by the gold gate",
}


def _figure(width: float, height: float) -> Any:
    # matplotlib (a second to import) loads only when a report draws.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Any) -> bytes:
    out = io.BytesIO()
    fig.savefig(out, dpi=DPI, format="png", metadata={"Software": None})
    return out.getvalue()


def forest_plot(comparisons: list[dict[str, Any]]) -> bytes:
    """Each comparison's delta and interval, in percentage points, against a zero line."""
    n = max(1, len(comparisons))
    fig = _figure(7.0, 1.4 + 0.6 * n)
    ax = fig.add_subplot()
    ax.axvline(0.0, color="black", linewidth=1.2, zorder=2)
    span = 10.0
    for i, c in enumerate(comparisons):
        y = n - 1 - i
        if c["refused"]:
            ax.text(0.0, y, "  refused: not comparable", va="center", ha="left", color="#b2182b",
                    fontsize=9)
            continue
        lo, delta, hi = (100 * c[k] for k in ("lo", "delta", "hi"))
        span = max(span, abs(lo), abs(hi))
        colour = VERDICT_COLOURS[c["verdict"]]
        ax.plot([lo, hi], [y, y], color=colour, linewidth=2.5, zorder=2)
        ax.plot([delta], [y], marker="D", color=colour, markersize=8, zorder=3)
        ax.text(hi, y + 0.18, f"  {delta:+.1f} pp ({c['verdict']})", va="bottom", ha="right",
                fontsize=8, color=colour)
    span = min(100.0, span * 1.15)
    ax.set_xlim(-span, span)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_yticks(range(n))
    names = [f"{label(c['b'])}\nvs {label(c['a'])}" for c in comparisons] or ["(no comparisons)"]
    ax.set_yticklabels(list(reversed(names)), fontsize=8)
    ax.set_xlabel("difference in resolve rate vs baseline, percentage points (intervals "
                  "agree with verdicts)", fontsize=8)
    ax.set_title("Comparisons with the baseline", fontsize=10)
    ax.grid(axis="x", color="#dddddd", linewidth=0.5, zorder=0)
    fig.tight_layout()
    return _png(fig)


def outcome_grid(outcomes: dict[str, Any], samples: int, simulated: dict[str, bool]) -> bytes:
    """Agents x tasks, each cell coloured by its outcome; with samples > 1 it reads
    resolved/graded."""
    from matplotlib.colors import ListedColormap, to_rgb
    from matplotlib.patches import Patch

    agents, tasks = outcomes["agents"], outcomes["tasks"]
    rows, cols = max(1, len(agents)), max(1, len(tasks))
    # Past this many tasks, cell texts and task names would be unreadable: colours only, and
    # the figure stops growing (a 2,000-task set must not make a 1,000-inch PNG).
    dense = cols > _MAX_LABELLED
    width = min(_MAX_INCHES, max(7.5, 2.5 + (0.12 if dense else 0.55) * cols))
    fig = _figure(width, min(_MAX_INCHES, 2.4 + 0.45 * rows))
    ax = fig.add_subplot()
    # A mesh of coloured quads, not an image: matplotlib resamples an image to the figure's
    # pixels in floats, and a 60-inch grid of 10 agents x 2,000 tasks took 200 MB to draw.
    states = list(COLOURS)
    codes = [[states.index(outcomes["cells"][a][t]["state"]) for t in tasks] for a in agents]
    if codes and codes[0]:
        ax.pcolormesh([x - 0.5 for x in range(len(tasks) + 1)],
                      [y - 0.5 for y in range(len(agents) + 1)], codes,
                      cmap=ListedColormap([to_rgb(COLOURS[s]) for s in states]),
                      vmin=-0.5, vmax=len(states) - 0.5, shading="flat", antialiased=False)
        ax.invert_yaxis()  # the first agent on top, as a table reads
    for i, a in enumerate(agents):
        for j, t in enumerate(tasks):
            cell = outcomes["cells"][a][t]
            text = "" if dense else _cell_text(cell, samples)
            if text:
                dark = cell["state"] in ("resolved", "failed", "policy")
                colour = "white" if dark else "#777777" if cell["state"] == "excluded" else "black"
                ax.text(j, i, text, ha="center", va="center", fontsize=7, color=colour)
    verdicts = outcomes.get("verdicts", {})
    names = [t if verdicts.get(t, "valid") == "valid" else f"{t} ({verdicts[t]})" for t in tasks]
    ax.set_xticks([] if dense else range(len(tasks)))
    ax.set_xticklabels([] if dense else names, rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(len(agents)))
    ax.set_yticklabels([label({"agent": a, "simulated": simulated.get(a)}) for a in agents],
                       fontsize=8)
    if not dense:
        ax.set_xticks([x - 0.5 for x in range(1, len(tasks))], minor=True)
    ax.set_yticks([y - 0.5 for y in range(1, len(agents))], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    if dense:
        ax.set_xlabel(f"{len(tasks)} tasks, in task id order (see summary.json for names)",
                      fontsize=8)
    ax.set_title("Outcome per agent and task", fontsize=10)
    handles = [Patch(facecolor=COLOURS[s], edgecolor="#999999", label=LEGEND[s])
               for s in COLOURS if samples > 1 or s != "partial"]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0.0, 0.12, 1.0, 1.0))
    return _png(fig)


def _cell_text(cell: dict[str, Any], samples: int) -> str:
    if cell["state"] == "excluded":
        return "excl."
    if cell["state"] == "error":
        return "pend" if cell.get("pending") == cell["planned"] else "err"
    return f"{cell['resolved']}/{cell['graded']}" if samples > 1 or \
        cell["graded"] != cell["planned"] else ""
