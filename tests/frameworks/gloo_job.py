# SPDX-License-Identifier: MIT
"""gloo_job.py MODE SECONDS: one rank of a PyTorch job on gloo (RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT from the environment).
  healthy     a matmul + all_reduce loop for SECONDS, then "rank R done True"
  tiny        a small matmul and an all_reduce of 16 floats per step
  all_reduce, all_gather, broadcast
              a loop bound by that collective on 4 MiB tensors
  loader      each step takes a batch of a DataLoader with two forked
              workers, a small matmul on it and an all_reduce of 16 floats
  barrier     rank 0 enters dist.barrier(); rank 1 computes for SECONDS and
              never reaches it (rank 0 is blocked in gloo)
  skip        every rank but the last all_reduces in a loop; the last
              computes for SECONDS and never reaches the all_reduce
  store       rank 0, the store's host, is in load_checkpoint for SECONDS
              before init_process_group; the others wait for its store
Every healthy mode runs the same number of steps on every rank: they stop
together when the first of them is out of time (a flag reduced with MIN).
"""
import os, sys, time
import torch
import torch.distributed as dist

mode, secs = sys.argv[1], float(sys.argv[2])
rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])


def load_checkpoint(secs):
    time.sleep(secs)


if mode == "store" and rank == 0:
    print("rank 0 in load_checkpoint", flush=True)
    load_checkpoint(secs)
dist.init_process_group("gloo", rank=rank, world_size=world)
torch.set_num_threads(1)
end = time.monotonic() + secs
steps = 0
MIB4 = (4 << 20) // 4  # floats in 4 MiB
HEALTHY = ('healthy', 'tiny', 'all_reduce', 'all_gather', 'broadcast', 'loader')


def until_out_of_time(step):
    global steps
    go = torch.ones(1)
    while go.item() > 0:
        step()
        steps += 1
        go = torch.tensor([1.0 if time.monotonic() < end else 0.0])
        dist.all_reduce(go, op=dist.ReduceOp.MIN)
    dist.barrier()


if mode == "healthy":
    a = torch.randn(192, 192)
    t = torch.ones(1024)

    def step():
        global a
        for _ in range(4):
            a = torch.tanh(a @ a)
        dist.all_reduce(t)
        t.div_(2)
    until_out_of_time(step)
elif mode == "tiny":
    a = torch.randn(64, 64)
    t = torch.ones(16)

    def step():
        global a
        a = torch.tanh(a @ a)
        dist.all_reduce(t)
        t.div_(2)
    until_out_of_time(step)
elif mode == "all_reduce":
    t = torch.ones(MIB4)

    def step():
        dist.all_reduce(t)
        t.div_(world)
    until_out_of_time(step)
elif mode == "all_gather":
    t = torch.ones(MIB4 // world)
    out = [torch.empty_like(t) for _ in range(world)]

    def step():
        dist.all_gather(out, t)
    until_out_of_time(step)
elif mode == "broadcast":
    t = torch.ones(MIB4)

    def step():
        dist.broadcast(t, src=steps % world)
    until_out_of_time(step)
elif mode == "loader":
    from torch.utils.data import DataLoader, Dataset

    class Rows(Dataset):
        def __len__(self):
            return 1 << 30

        def __getitem__(self, i):
            return torch.full((64,), float(i % 7))

    batches = iter(DataLoader(Rows(), batch_size=64, num_workers=2))
    t = torch.ones(16)

    def step():
        b = next(batches)
        torch.tanh(b @ b.T)
        dist.all_reduce(t)
        t.div_(2)
    until_out_of_time(step)
elif mode == "barrier":
    a = torch.randn(192, 192)
    if rank == 0:
        print("rank 0 in barrier", flush=True)
        dist.barrier()
    else:
        while time.monotonic() < end:
            a = torch.tanh(a @ a)
        time.sleep(3600)
elif mode == "skip":
    a = torch.randn(192, 192)
    t = torch.ones(MIB4)
    if rank != world - 1:
        print(f"rank {rank} in all_reduce", flush=True)
        while True:
            dist.all_reduce(t)
    else:
        while time.monotonic() < end:
            a = torch.tanh(a @ a)
        time.sleep(3600)
# As torch 2.x asks of a program: without it, torch 2.15's gloo worker may
# drop the last reference to a collective's tensors while the interpreter
# finalizes, and the process ends in std::terminate (seen here under
# LD_PRELOAD only, 1 run in 12 with a 300 s deadline on a loaded machine).
dist.destroy_process_group()
print(f"rank {rank} done {steps > 0 or mode not in HEALTHY}", flush=True)
