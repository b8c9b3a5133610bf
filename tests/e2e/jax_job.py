#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""jax_job.py ADDRESS N ID [ckpt SECS]: one process of a JAX job on CPU,
its coordinator address given as an argument (not JAX_COORDINATOR_ADDRESS):
jax.distributed.initialize(coordinator_address=ADDRESS, num_processes=N,
process_id=ID). With ckpt, it first sits SECS seconds in
load_checkpoint()."""
import sys
import time


def load_checkpoint(secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        time.sleep(0.1)


def main():
    addr, n, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if sys.argv[4:5] == ["ckpt"]:
        load_checkpoint(float(sys.argv[5]))
    import jax
    jax.distributed.initialize(coordinator_address=addr, num_processes=n, process_id=pid,
                               initialization_timeout=60)
    print("process %d of %d: %d devices" % (pid, n, jax.device_count()), flush=True)
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
