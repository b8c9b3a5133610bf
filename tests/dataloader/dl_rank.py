#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""dl_rank.py MODE: one rank of a 2-rank PyTorch gloo job (RANK, WORLD_SIZE,
MASTER_ADDR, MASTER_PORT in the environment). Every rank joins the group;
the rank named by BAD_RANK (default 1; "all": every rank) then takes its first batch from a
DataLoader with 2 fork workers, or loads a C++ extension, while the others
wait in a barrier. MODE (for the BAD_RANK; the others only join and wait):

  fork_lock   a parent thread holds a lock when the workers fork; __getitem__
              takes it: the worker's copy stays locked forever
  sigkill     worker 0 SIGKILLs itself in __getitem__
  exit1       worker 0 ends with os._exit(1) in __getitem__
  big         workers return 64 MiB tensors (through /dev/shm)
  none        (or any other word) a first batch that comes
  ext NAME    torch.utils.cpp_extension.load(NAME, ...) of a one-function
              extension built under TORCH_EXTENSIONS_DIR
  torch_load FILE / numpy_load FILE / urlopen URL / requests URL   the
              activity, from a FIFO nobody writes, or a server that never answers

STORE_TIMEOUT (seconds, default 60) bounds init_process_group."""
import datetime
import os
import signal
import sys
import threading
import time

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset

LOCK = threading.Lock()


class Items(Dataset):
    def __init__(self, mode):
        self.mode = mode

    def __len__(self):
        return 64

    def __getitem__(self, i):
        info = torch.utils.data.get_worker_info()
        if self.mode == "fork_lock":
            with LOCK:	# locked in this copy since the fork: never returns
                return torch.tensor([i])
        if self.mode == "sigkill" and info.id == 0:
            os.kill(os.getpid(), signal.SIGKILL)
        if self.mode == "exit1" and info.id == 0:
            os._exit(1)
        if self.mode == "big":
            return torch.ones(16 << 20)	# 64 MiB of float32
        return torch.tensor([i])


def hold_lock_forever():
    LOCK.acquire()
    threading.Event().wait()


def first_batch(mode):
    if mode == "fork_lock":
        threading.Thread(target=hold_lock_forever, daemon=True).start()
        while not LOCK.locked():
            time.sleep(0.01)
    # One worker for the shared-memory case: two would race to die of
    # SIGBUS, and the test names the one that did.
    loader = DataLoader(Items(mode), batch_size=4, num_workers=1 if mode == "big" else 2)
    for batch in loader:
        print("rank %s: first batch %s" % (os.environ["RANK"], tuple(batch.shape)), flush=True)
        break


def load_extension(name):
    from torch.utils import cpp_extension
    src = os.path.join(os.environ["TORCH_EXTENSIONS_DIR"], name + ".cpp")
    with open(src, "w") as f:
        f.write("#include <torch/extension.h>\n"
                "int one() { return 1; }\n"
                "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"one\", &one); }\n")
    mod = cpp_extension.load(name, [src], verbose=True)
    print("rank %s: extension says %d" % (os.environ["RANK"], mod.one()), flush=True)


def main():
    mode = sys.argv[1]
    rank = int(os.environ["RANK"])
    timeout = datetime.timedelta(seconds=float(os.environ.get("STORE_TIMEOUT", "60")))
    dist.init_process_group("gloo", timeout=timeout)
    bad = os.environ.get("BAD_RANK", "1")
    if bad == "all" or rank == int(bad):
        if mode == "ext":
            load_extension(sys.argv[2])
        elif mode == "torch_load":
            torch.load(sys.argv[2])
        elif mode == "numpy_load":
            import numpy
            numpy.load(sys.argv[2])
        elif mode == "urlopen":
            import urllib.request
            urllib.request.urlopen(sys.argv[2], timeout=600).read()
        elif mode == "requests":
            import requests
            requests.get(sys.argv[2], timeout=600)
        else:
            first_batch(mode)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
