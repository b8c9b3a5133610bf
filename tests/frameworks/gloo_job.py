# SPDX-License-Identifier: MIT
"""gloo_job.py MODE SECONDS: one rank of a 2-rank PyTorch job on gloo
(RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT from the environment).
  healthy   a matmul + all_reduce loop for SECONDS, then "rank R done"
  barrier   rank 0 enters dist.barrier(); rank 1 computes for SECONDS and
            never reaches it (rank 0 is blocked in gloo)
"""
import os, sys, time
import torch
import torch.distributed as dist

mode, secs = sys.argv[1], float(sys.argv[2])
rank = int(os.environ["RANK"])
dist.init_process_group("gloo", rank=rank, world_size=int(os.environ["WORLD_SIZE"]))
torch.set_num_threads(1)
a = torch.randn(192, 192)
t = torch.ones(1024)
end = time.monotonic() + secs
steps = 0
if mode == "healthy":
    # Every rank runs the same number of steps: they stop together when
    # the first of them is out of time (a flag reduced with MIN).
    go = torch.ones(1)
    while go.item() > 0:
        for _ in range(4):
            a = torch.tanh(a @ a)
        dist.all_reduce(t)
        t /= 2
        steps += 1
        go = torch.tensor([1.0 if time.monotonic() < end else 0.0])
        dist.all_reduce(go, op=dist.ReduceOp.MIN)
    dist.barrier()
elif mode == "barrier":
    if rank == 0:
        print("rank 0 in barrier", flush=True)
        dist.barrier()
    else:
        while time.monotonic() < end:
            a = torch.tanh(a @ a)
        time.sleep(3600)
print(f"rank {rank} done {steps > 0 or mode != 'healthy'}", flush=True)
