#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""expect.py REPORT.json RC EXPR: evaluates EXPR over a `hangtrace report
--json` output and its exit status; exit 0 when EXPR holds, else 1 after a
short account of the report (status, verdicts, ranks, stack groups).

Names in EXPR:
  d        the report (dict)         rc       the report's exit status (int)
  v        the verdicts (list)       v0       the first verdict ({} if none)
  codes    the verdicts' codes       errors   the verdicts of severity error
  V(code)  the first verdict with that code ({} if none)
  R(rank)  the rank's entry in d['ranks'] ({} if none)
  G(rank)  the stack group holding that rank ({} if none)
  groups   d['stack_groups']         ranks    d['ranks']
  frames(g) the frames of group g, as one string (for `in` tests)
  re       the re module
"""
import json
import re
import sys


def main():
    path, rc_text, expr = sys.argv[1:4]
    try:
        d = json.load(open(path))
    except Exception as x:
        print("no JSON report (%s); status %s" % (x, rc_text))
        return 1
    rc = int(rc_text) if rc_text.strip().lstrip("-").isdigit() else None
    v = d.get("verdicts", [])
    groups = d.get("stack_groups", [])

    def V(code):
        return next((x for x in v if x.get("code") == code), {})

    def R(rank):
        return next((x for x in d.get("ranks", []) if x.get("rank") == rank), {})

    def G(rank):
        return next((g for g in groups if rank in g.get("ranks", [])), {})

    def frames(g):
        return "\n".join(g.get("frames", []))

    env = dict(d=d, rc=rc, v=v, v0=v[0] if v else {}, codes=[x.get("code") for x in v],
               errors=[x for x in v if x.get("severity") == "error"], V=V, R=R, G=G,
               groups=groups, ranks=d.get("ranks", []), frames=frames, re=re)
    try:
        ok = eval("(" + expr + "\n)", env)
    except Exception as x:
        ok = False
        print("%s: %s" % (type(x).__name__, x))
    if ok:
        return 0
    print("report status %s; expected: %s" % (rc, " ".join(expr.split())))
    for x in v:
        print("  verdict %s %s ranks %s: %s" % (x.get("code"), x.get("severity"), x.get("ranks"),
                                               x.get("summary")))
    for r in d.get("ranks", []):
        print("  rank %s host %s phase %s state %s exit %s group %s" % (
            r.get("rank"), r.get("host"), r.get("phase"), r.get("state"), r.get("exit"),
            r.get("stack_group")))
    for i, g in enumerate(groups):
        print("  group %d ranks %s phase %s state %s: %s" % (
            i, g.get("ranks"), g.get("phase"), g.get("state"), " < ".join(g.get("frames", [])[:6])))
    for w in d.get("warnings", [])[:5]:
        print("  warning: %s" % w)
    return 1


if __name__ == "__main__":
    sys.exit(main())
