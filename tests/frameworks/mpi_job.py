# SPDX-License-Identifier: MIT
"""mpi_job.py MODE SECONDS: one rank of an mpi4py job (Open MPI).
  healthy   a numpy compute + Allreduce loop for SECONDS, then "rank R done"
  allreduce an Allreduce loop of 4 MiB buffers for SECONDS (its time in
            MPI_Allreduce), then "rank R done"
  barrier   rank 0 waits in MPI_Barrier (Open MPI spins there); rank 1
            computes and never reaches it
"""
import sys, time
import numpy as np
from mpi4py import MPI

mode, secs = sys.argv[1], float(sys.argv[2])
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
a = np.random.rand(160, 160)
buf = np.ones(1024)
out = np.empty_like(buf)
end = time.monotonic() + secs
steps = 0
if mode == "healthy":
    # Every rank runs the same number of steps: they stop together when
    # the first of them is out of time.
    go = True
    while go:
        for _ in range(4):
            a = np.tanh(a @ a)
        comm.Allreduce(buf, out, op=MPI.SUM)
        steps += 1
        go = comm.allreduce(time.monotonic() < end, op=MPI.LAND)
    comm.Barrier()
elif mode == "allreduce":
    big = np.ones(1 << 19)   # 4 MiB of float64
    big_out = np.empty_like(big)
    go = True
    while go:
        for _ in range(8):
            comm.Allreduce(big, big_out, op=MPI.SUM)
        steps += 1
        go = comm.allreduce(time.monotonic() < end, op=MPI.LAND)
    comm.Barrier()
elif mode == "barrier":
    if rank == 0:
        print("rank 0 in barrier", flush=True)
        comm.Barrier()
    else:
        while True:
            a = np.tanh(a @ a)
print(f"rank {rank} done {steps > 0 or mode != 'healthy'}", flush=True)
