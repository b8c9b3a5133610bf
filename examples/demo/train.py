# SPDX-License-Identifier: MIT
"""One rank of the PyTorch demo job: loads a "checkpoint", joins the process
group (gloo, env:// rendezvous from RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT)
and runs a first allreduce. If a rank never starts, the others wait in
init_process_group until the store times out (30 minutes by default)."""
import os
import torch
import torch.distributed as dist


def load_checkpoint():
    return torch.zeros(4)


def main():
    rank = int(os.environ["RANK"])
    state = load_checkpoint()
    print(f"rank {rank}: checkpoint loaded, joining the process group", flush=True)
    dist.init_process_group("gloo")
    dist.all_reduce(state)
    print(f"rank {rank}: first allreduce done", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
