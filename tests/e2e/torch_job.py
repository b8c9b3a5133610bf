#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""torch_job.py MODE...: one rank of a small PyTorch gloo job (RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT in the environment, init_method
env://), broken in one of the ways tests/e2e/jobs.sh reports on. Each
MODE word is a step, in order:

  ok              init_process_group, all_reduce, barrier, destroy
  init            init_process_group only
  ckpt SECS       sit in load_checkpoint() for SECS seconds first
  sleep SECS      sleep SECS seconds (not in a barrier: a rank that never
                  reaches it)
  sleep_on R SECS sleep SECS seconds on rank R only (a rank that comes late)
  wait_on R PATH  on rank R only, wait (at most 120 s) until PATH exists
  barrier         dist.barrier()
  monitored SECS  dist.monitored_barrier(timeout=SECS)
  helper          run `which hipcc | xargs readlink -f` (exits 1 where
                  hipcc is missing), as torch.utils.cpp_extension does
  raise           raise RuntimeError
  raise_on R      raise RuntimeError on rank R only (the others go on)
  all_reduce      dist.all_reduce of a small tensor
  note PATH       append this rank's number to PATH (a test waits on it)

STORE_TIMEOUT (seconds, default 60) bounds init_process_group. INIT_METHOD,
when set (tcp://HOST:PORT), is passed to init_process_group with the rank
and world size, as jobs that name the store in an argument do."""
import datetime
import os
import subprocess
import sys
import time

import torch
import torch.distributed as dist


def load_checkpoint(secs):
    print("rank %s loading checkpoint" % os.environ["RANK"], flush=True)
    end = time.monotonic() + secs
    while time.monotonic() < end:
        time.sleep(0.1)


def init(timeout):
    method = os.environ.get("INIT_METHOD")
    if method:
        dist.init_process_group("gloo", init_method=method, timeout=timeout,
                                rank=int(os.environ["RANK"]),
                                world_size=int(os.environ["WORLD_SIZE"]))
    else:
        dist.init_process_group("gloo", timeout=timeout)


def main():
    args = sys.argv[1:]
    rank = int(os.environ["RANK"])
    timeout = datetime.timedelta(seconds=float(os.environ.get("STORE_TIMEOUT", "60")))
    while args:
        step = args.pop(0)
        if step == "ok":
            init(timeout)
            t = torch.tensor([rank + 1.0])
            dist.all_reduce(t)
            dist.barrier()
            dist.destroy_process_group()
        elif step == "init":
            init(timeout)
        elif step == "ckpt":
            load_checkpoint(float(args.pop(0)))
        elif step == "note":
            with open(args.pop(0), "a") as f:
                f.write("%d\n" % rank)
        elif step == "sleep":
            time.sleep(float(args.pop(0)))
        elif step == "sleep_on":
            r, secs = int(args.pop(0)), float(args.pop(0))
            if r == rank:
                time.sleep(secs)
        elif step == "wait_on":
            r, path = int(args.pop(0)), args.pop(0)
            end = time.monotonic() + 120
            while r == rank and not os.path.exists(path) and time.monotonic() < end:
                time.sleep(0.05)
        elif step == "barrier":
            dist.barrier()
        elif step == "monitored":
            dist.monitored_barrier(timeout=datetime.timedelta(seconds=float(args.pop(0))))
        elif step == "helper":
            r = subprocess.run("which hipcc | xargs readlink -f", shell=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print("rank %d: helper exited %d" % (rank, r.returncode), flush=True)
        elif step == "raise":
            raise RuntimeError("rank %d: bad configuration" % rank)
        elif step == "raise_on":
            if rank == int(args.pop(0)):
                raise RuntimeError("rank %d: bad configuration" % rank)
        elif step == "all_reduce":
            dist.all_reduce(torch.ones(4))
        else:
            raise SystemExit("torch_job.py: unknown step %r" % step)
    print("rank %d done" % rank, flush=True)


if __name__ == "__main__":
    main()
