#!/usr/bin/env python3
"""Whether runs of the same seed matrices agree (tests/seeds/xen-lab.sh).

    tests/seeds/agree.py RUN_DIR... [--names ID=NAME ...]

Each RUN_DIR holds effects-ID.json (`kbisect effects ID --json`) for the
experiment ID of one run of a matrix, NAME.  Prints, per experiment, every effect's change,
interval and Holm-adjusted p in each run side by side, the set each run
calls at Holm's level, and the sentinel (the run's own A/A).  Exit 0 when
every experiment calls the same set in every run and no sentinel differs
from its baseline, 1 otherwise, 2 on bad input.
"""
import json
import os
import sys


def load(run, eid):
    path = os.path.join(run, "effects-%s.json" % eid)
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("agree.py: %s: %s" % (path, e))


def entries(d):
    """The ranked effects, then, for a matrix with conditions, each
    factor's change within each level of them ("F at LEVEL") and whether
    it depends on the level ("F by LEVEL vs FIRST"): the whole family
    Holm's method adjusts together (docs/analysis.md, "Conditions")."""
    out = list(d["effects"])
    for w in d.get("within") or []:
        out.append(dict(w, name="%s at %s" % (w["name"], w["level"])))
    for w in d.get("depends") or []:
        out.append(dict(w, name="%s by %s" % (w["name"], w["levels"]),
                        significant=w.get("changes_with_level")))
    return out


def label(run):
    """run-1/seed000-lab-full -> run-1; another folder: its name"""
    parts = os.path.normpath(run).split(os.sep)
    for p in reversed(parts):
        if p.startswith("run-"):
            return p
    return parts[-1]


def pct(x):
    return "%+.1f%%" % x if x is not None else "n/a"


def cell(e):
    if e is None:
        return "-"
    lo, hi = e["ci_pct"]
    star = " *" if e.get("significant") else ""
    return "%s [%s, %s] %.2g%s" % (pct(e["change_pct"]), pct(lo), pct(hi),
                                   e["p_adjusted"], star)


def main(argv):
    names, runs = {}, []
    for a in argv:
        if "=" in a:
            k, v = a.split("=", 1)
            names[k] = v
        else:
            runs.append(a)
    if len(runs) < 1 or not names:
        sys.exit("usage: agree.py RUN_DIR... ID=NAME...")
    agree = True
    for eid, name in sorted(names.items()):
        docs = [load(r, eid) for r in runs]
        sets_of = [entries(d) for d in docs]
        print("== %s (experiment %s in each run)" % (name, eid))
        order = [e["name"] for e in sets_of[0]]
        for es in sets_of[1:]:
            order += [e["name"] for e in es if e["name"] not in order]
        w = max(len(n) for n in order) if order else 6
        print("  %-*s  %s" % (w, "effect", "  |  ".join(
            "%s: change [95%% CI] Holm p" % label(r) for r in runs)))
        for n in order:
            cells = []
            for es in sets_of:
                e = next((x for x in es if x["name"] == n), None)
                cells.append(cell(e))
            print("  %-*s  %s" % (w, n, "  |  ".join(cells)))
        sets = []
        for r, d, es in zip(runs, docs, sets_of):
            called = sorted(e["name"] for e in es if e.get("significant"))
            sets.append(called)
            s = d.get("sentinel")
            if s is None:
                sen = "no sentinel"
            else:
                c = s["against_baseline"]
                sen = "%s [%s, %s], %s" % (
                    pct(c["change_pct"]), pct(c["ci_pct"][0]), pct(c["ci_pct"][1]),
                    "DIFFERS, p %.2g" % c["p"] if s["differs"] else c["verdict"])
                if s["differs"]:
                    agree = False
            print("  %s: residual CV %.1f%%, called: %s; sentinel (A/A): %s" % (
                label(r), d.get("residual_cv_pct") or float("nan"),
                ", ".join(called) or "none", sen))
        same = all(s == sets[0] for s in sets)
        print("  the called sets %s" % ("agree" if same else "DIFFER"))
        agree = agree and same
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
