#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""torch_rank.py MODE [ARG]: one rank of a small PyTorch gloo job, launched
with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT in the environment
(init_method env://). MODE:

  ok                     init, all_reduce of rank+1, print the sum, barrier
  raise                  raise before init_process_group
  load_checkpoint FILE   sleep in load_checkpoint() until FILE exists (at
                         most 60 s), then as ok

STORE_TIMEOUT (seconds, default 60) bounds init_process_group."""
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist


def load_checkpoint(marker):
    print("rank %s loading checkpoint" % os.environ["RANK"], flush=True)
    end = time.monotonic() + 60
    while not os.path.exists(marker) and time.monotonic() < end:
        time.sleep(0.1)


def main():
    mode = sys.argv[1]
    rank = int(os.environ["RANK"])
    if mode == "raise":
        raise RuntimeError("rank %d: bad configuration before init" % rank)
    if mode == "load_checkpoint":
        load_checkpoint(sys.argv[2])
    timeout = datetime.timedelta(seconds=float(os.environ.get("STORE_TIMEOUT", "60")))
    dist.init_process_group("gloo", timeout=timeout)
    t = torch.tensor([rank + 1.0])
    dist.all_reduce(t)
    print("rank %d of %d: sum %g" % (rank, dist.get_world_size(), t.item()), flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
