"""The agreement table as text: the console and report.md read the same lines."""

from __future__ import annotations

from evaluator.submissions._table import AGREE, DISAGREE, Row, Table, TestDiff

_OUTCOME = {True: "resolved", False: "unresolved", None: "-"}


def headline(t: Table) -> str:
    c = t.counts
    where = ", ".join(filter(None, [t.split, "model " + ", ".join(t.models) if t.models else ""]))
    causes = ", ".join(f"{n} {cause}" for cause, n in t.causes.items())
    return (f"submission {t.subject}" + (f" ({where})" if where else "") + f" on {t.task_set}: "
            f"{c['instances']} instance(s): {c['agree']} agree, {c['disagree']} disagree"
            + (f" ({causes})" if causes else "")
            + f", {c['unverified']} not re-verified, {c['unpublished']} with no published "
            f"outcome; resolved: published {c['published_resolved']}, ours "
            f"{c['ours_resolved']}; test lists differ on {c['tests_differ']}")


def table_lines(t: Table, *, every: bool = True, outputs: bool = True) -> list[str]:
    """The headline, a line per instance (only the differing ones unless `every`), and under
    each difference its cause, the tests that differ and both outputs' lines."""
    lines = [headline(t), f"{'instance':40} {'published':10} {'ours':34} {'state':11} cause"]
    for r in t.rows:
        if not every and r.state == AGREE and r.tests_agree is not False:
            continue
        lines.append(f"{r.instance_id:40} {_OUTCOME[r.published]:10} {r.ours[:34]:34} "
                     f"{r.state:11} {r.cause}")
        if r.state == DISAGREE or r.tests_agree is False or (r.why and r.state != AGREE):
            lines += _detail(r, outputs)
    return lines


def _detail(r: Row, outputs: bool) -> list[str]:
    out = [f"    why: {r.why}"] if r.why else []
    out += [f"    note: {n}" for n in r.notes]
    for d in r.tests:
        out.append(f"    {d.kind} {d.test}: published {_word(d.published)}, ours {d.ours}"
                   + (f" (their output, read by ours: {d.their_reading})"
                      if d.their_reading else ""))
        if outputs:
            out += _side_by_side(d)
    return out


def _word(published: bool | None) -> str:
    return {True: "success", False: "failure", None: "not listed"}[published]


def _side_by_side(d: TestDiff) -> list[str]:
    out = []
    for who, text in (("theirs", d.their_lines), ("ours  ", d.our_lines)):
        shown = text.splitlines()[:6] or ["(no line of the output names it)"]
        out += [f"      {who} | {line}" for line in shown]
    return out
