# SPDX-License-Identifier: MIT
"""jax_job.py MODE SECONDS: one process of a JAX job on the CPU
(JAX_COORDINATOR_ADDRESS, RANK and WORLD_SIZE from the environment).
  healthy   jax.distributed.initialize, then a jitted matmul loop for
            SECONDS, then "process R done"
  allgather jax.distributed.initialize, then a loop of cross-process
            all-gathers of 1 MiB (multihost_utils.process_allgather, its
            time in the collective) for SECONDS, then "process R done"
  init      jax.distributed.initialize for WORLD_SIZE processes of which
            only this one starts: it waits in initialize
  sync      process 0 waits in multihost_utils.sync_global_devices, which
            process 1, computing for SECONDS, never reaches
"""
import os, sys, time
import jax
import jax.numpy as jnp

mode, secs = sys.argv[1], float(sys.argv[2])
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
print(f"process {rank} initializing", flush=True)
jax.distributed.initialize(coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
                           num_processes=world, process_id=rank,
                           initialization_timeout=int(os.environ.get("JAX_INIT_TIMEOUT", "300")))
f = jax.jit(lambda x: jnp.tanh(x @ x))
x = jnp.ones((192, 192)) / 192
end = time.monotonic() + secs
steps = 0
if mode == "sync" and rank == 0:
    from jax.experimental import multihost_utils
    print("process 0 in sync_global_devices", flush=True)
    multihost_utils.sync_global_devices("never")
if mode == "allgather":
    from jax.experimental import multihost_utils
    v = jnp.ones((1 << 18,))
    go = True
    while go:
        multihost_utils.process_allgather(v)
        steps += 1
        # Every process stops at the same step: when the first is out of time.
        go = bool(multihost_utils.process_allgather(jnp.array(time.monotonic() < end)).all())
while mode != "allgather" and time.monotonic() < end:
    x = f(x).block_until_ready()
    steps += 1
print(f"process {rank} done {steps > 0}", flush=True)
