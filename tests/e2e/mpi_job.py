#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""mpi_job.py MODE [ARG]: an mpi4py job on Open MPI, every rank calling
MPI_Barrier once. MODE:

  ok          all ranks reach the barrier
  ckpt R S    rank R first sits S seconds in load_checkpoint() (reading a
              file over and over), the others wait in the barrier
  raise R S   rank R raises after S seconds, the others wait in the barrier"""
import sys
import time

from mpi4py import MPI


def load_checkpoint(secs):
    end = time.monotonic() + secs
    with open(sys.executable, "rb") as f:
        while time.monotonic() < end:
            f.seek(0)
            f.read(1 << 20)
            time.sleep(0.05)


def main():
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    mode = sys.argv[1]
    if mode == "ckpt" and rank == int(sys.argv[2]):
        load_checkpoint(float(sys.argv[3]))
    if mode == "raise" and rank == int(sys.argv[2]):
        time.sleep(float(sys.argv[3]))
        raise RuntimeError("rank %d: bad input" % rank)
    comm.Barrier()
    print("rank %d passed the barrier" % rank, flush=True)


if __name__ == "__main__":
    main()
