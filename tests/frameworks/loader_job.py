# SPDX-License-Identifier: MIT
"""loader_job.py: a rank whose DataLoader worker (real torch DataLoader,
num_workers=1, forked) blocks in __getitem__ on a lock that a thread of the
parent held when the worker was forked: the worker waits forever, the
parent waits for its batch."""
import threading, time
import torch
from torch.utils.data import DataLoader, Dataset

shared = threading.Lock()
held = threading.Event()


def holder():
    with shared:
        held.set()
        time.sleep(3600)


class Locked(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        shared.acquire()    # held in the parent at fork: never free here
        return torch.tensor([i])


threading.Thread(target=holder, daemon=True).start()
held.wait()
loader = DataLoader(Locked(), batch_size=1, num_workers=1)
print("waiting for a batch", flush=True)
for batch in loader:
    print("got", batch, flush=True)
