#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tq.py DIR EXPR [-v]: loads every trace file under DIR and evaluates EXPR,
a Python expression, with these names bound:

  procs            list of Proc (one per process record: header + events)
  proc(rank=, pid=, main=True)   the one matching Proc (error if not one)
  events(t=None, **fields)       all events of all procs matching
  ev(t, **fields)  the first matching event of all procs, or None
  re               the re module

A Proc has .header, .events, .rank, .pid, .file, .ev(t, **f), .evs(t, **f),
.dumps (list of (stall, [threads], dump_end)), .main_frames(n) (native frames
of the main thread in dump n, 1-based or -1), .python_frames(n), .exit.
Every line of every file must parse (a truncated last line is allowed only
with -t). Exit 0 when EXPR is truthy, 1 (printing a summary) otherwise."""
import glob, json, os, re, sys


class Proc:
    def __init__(self, path, header):
        self.file = path
        self.header = header
        self.events = []

    rank = property(lambda s: s.header.get("rank"))
    pid = property(lambda s: s.header.get("pid"))

    def evs(self, t=None, **f):
        return [e for e in self.events if (t is None or e.get("t") == t)
                and all(e.get(k) == v for k, v in f.items())]

    def ev(self, t=None, **f):
        r = self.evs(t, **f)
        return r[0] if r else None

    @property
    def exit(self):
        return self.ev("exit")

    @property
    def dumps(self):
        out, cur = [], None
        for e in self.events:
            if e["t"] == "stall":
                cur = (e, [], None)
                out.append(cur)
            elif e["t"] == "thread" and cur is not None:
                cur[1].append(e)
            elif e["t"] == "dump_end" and cur is not None:
                out[-1] = (cur[0], cur[1], e)
                cur = None
        return out

    @property
    def declared(self):
        """The latest whole dump declared the process blocked (SPEC section
        6): a look that found it working, or was not sure yet, is not a
        stall. Traces without the member count as declared."""
        d = self.dumps
        return bool(d) and d[-1][2] is not None and d[-1][2].get("declared", True) is not False

    def main_thread(self, n=-1):
        d = self.dumps[n if n < 0 else n - 1]
        return next(t for t in d[1] if t.get("main"))

    def main_frames(self, n=-1):
        return self.main_thread(n).get("frames", [])

    def python_frames(self, n=-1):
        return self.main_thread(n).get("python", [])

    def __repr__(self):
        return "Proc(rank=%r pid=%r file=%s events=%d)" % (
            self.rank, self.pid, os.path.basename(self.file), len(self.events))


def load(d, allow_truncated):
    procs = []
    for path in sorted(glob.glob(os.path.join(d, "**", "*.jsonl"), recursive=True)):
        if os.path.basename(path).startswith("nccl."):
            continue
        cur = None
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        for i, raw in enumerate(lines):
            if not raw:
                continue
            try:
                e = json.loads(raw.decode("utf-8"))
            except Exception as x:
                last = i == len(lines) - 1 or (i == len(lines) - 2 and lines[-1] == b"")
                if allow_truncated and last:
                    continue
                raise SystemExit("tq: %s:%d does not parse: %s" % (path, i + 1, x))
            for k in ("t", "ts", "mono"):
                if k not in e:
                    raise SystemExit("tq: %s:%d lacks %r" % (path, i + 1, k))
            if e["t"] == "header":
                cur = Proc(path, e)
                procs.append(cur)
            elif cur is None:
                raise SystemExit("tq: %s:%d: event before any header" % (path, i + 1))
            else:
                cur.events.append(e)
    return procs


def main():
    args = [a for a in sys.argv[1:] if a not in ("-v", "-t")]
    if len(args) != 2:
        raise SystemExit(__doc__)
    procs = load(args[0], "-t" in sys.argv)

    def proc(rank=None, pid=None, main=True):
        c = [p for p in procs if (rank is None or p.rank == rank) and
             (pid is None or p.pid == pid)]
        if main and rank is not None and len(c) > 1:
            # a rank's main process: the one that dumped or did GPU work,
            # else the root of the tree (no parent among the candidates)
            d = [p for p in c if p.dumps or p.header.get("relevant") in ("cuda", "nccl")]
            if len(d) != 1:
                pids = {p.pid for p in c}
                d = [p for p in c if p.header.get("ppid") not in pids]
            c = d
        if len(c) != 1:
            raise SystemExit("tq: %d processes match rank=%r pid=%r: %r" % (len(c), rank, pid, c))
        return c[0]

    def events(t=None, **f):
        return [e for p in procs for e in p.evs(t, **f)]

    def ev(t=None, **f):
        r = events(t, **f)
        return r[0] if r else None

    env = dict(procs=procs, proc=proc, events=events, ev=ev, re=re, json=json)
    try:
        ok = eval(args[1], env)
    except SystemExit:
        raise
    except Exception as x:
        ok = False
        print("tq: %s: %s: %s" % (args[1], type(x).__name__, x), file=sys.stderr)
    if not ok or "-v" in sys.argv:
        print("tq: %s -> %r over %d process(es):" % (args[1], ok, len(procs)), file=sys.stderr)
        for p in procs:
            print("  %r %s" % (p, [e["t"] + ("/" + e["phase"] if e["t"] == "phase" else "")
                                   for e in p.events][:40]), file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
