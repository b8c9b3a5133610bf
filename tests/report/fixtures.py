#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""fixtures.py [OUTDIR]: writes the report's trace fixtures, one folder per
case under OUTDIR (default tests/fixtures/report), every line as
doc/trace-format.md says the library writes it: key order t, ts, mono, tid,
then the fields; times with 6 decimals. Each case below spells out its
events one by one (a hand-written trace, kept as code so that 40 cases stay
consistent); the files it writes are committed, and tests/report/report.sh
checks they are what this script writes."""
import json
import os
import shutil
import sys

TS0 = 1700000000.0
BOOT = {"n1": ("0b1e5a9c-1111-4d2e-9f00-000000000001", 5000.0),
        "n2": ("0b1e5a9c-2222-4d2e-9f00-000000000002", 7000.0),
        "n3": ("0b1e5a9c-3333-4d2e-9f00-000000000003", 9000.0),
        "n4": ("0b1e5a9c-4444-4d2e-9f00-000000000004", 11000.0)}
UUID = "GPU-5d1b3c7e-0c7a-4f0e-8a2b-00000000000%d"
PY = "/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py"


def num(x):
    return "%.6f" % x


def enc(v):
    if isinstance(v, float):
        return num(v)
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + enc(x) for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(enc(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


class Proc:
    """One traced process: its header and then its events, in order."""

    def __init__(self, host, pid, rank=None, ws=None, local=None, launcher="torchrun",
                 ppid=1, t=0.0, relevant="identity", env=None, fork_parent=None,
                 cuda_inherited=False, cmd=("/usr/bin/python3", "train.py"),
                 exe="/usr/bin/python3.11", timeout=60.0, job="1234", skew=0.0):
        self.host, self.pid, self.rank = host, pid, rank
        self.boot, self.mono0 = BOOT[host]
        self.skew = skew
        self.lines = []
        self.dumps = 0
        self.calls = 0
        e = {"MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"}
        if rank is not None and launcher in ("torchrun", "env"):
            e.update({"RANK": str(rank), "WORLD_SIZE": str(ws), "LOCAL_RANK": str(local)})
            if launcher == "torchrun":
                e["TORCHELASTIC_RUN_ID"] = job
        if rank is not None and launcher == "slurm":
            e.update({"SLURM_PROCID": str(rank), "SLURM_NTASKS": str(ws),
                      "SLURM_LOCALID": str(local), "SLURM_JOB_ID": job})
        e.update(env or {})
        self.line(t, "header", format="hangtrace/1", version="0.1.0", host=host, pid=pid,
                  ppid=ppid, rank=rank, world_size=ws if rank is not None else None,
                  local_rank=local if rank is not None else None,
                  launcher=launcher if rank is not None else None, job=job,
                  relevant=relevant, dump_signal=63, boot_id=self.boot,
                  btime=TS0 + skew - self.mono0, start_ticks=int(self.mono0 * 100 + t * 100),
                  fork_parent=fork_parent, cuda_inherited=cuda_inherited, timeout=timeout,
                  on_stall="dump", warnings=[], exe=exe, cwd="/work", cmdline=list(cmd), env=e)
        self.phase(t, "launch", "begin")

    def line(self, t, kind, tid=None, **f):
        head = {"t": kind, "ts": TS0 + self.skew + t, "mono": self.mono0 + t}
        if kind != "header" and kind != "thread":
            head["tid"] = self.pid if tid is None else tid
        head.update(f)
        self.lines.append(enc(head))
        return self

    def phase(self, t, phase, state, **f):
        return self.line(t, "phase", phase=phase, state=state, **f)

    def host_facts(self, t, shm=16 << 30, ifname=None, match=("ens5",), ifaces=("lo", "ens5")):
        return self.line(t, "host", hostname=self.host,
                         ifaces=[{"name": n, "up": True, "addrs": ["10.0.0.%d/24" % (i + 1)]
                                  if n != "lo" else ["127.0.0.1/8"]} for i, n in enumerate(ifaces)],
                         nccl_socket_ifname=ifname, gloo_socket_ifname=None,
                         nccl_ifname_match=list(match), gloo_ifname_match=list(ifaces),
                         shm_total=shm, shm_free=shm - (1 << 20), memlock_soft=None,
                         memlock_hard=None, nofile_soft=1048576, nofile_hard=1048576, cpus=32)

    def rendezvous(self, t, dest="10.0.0.1:29500", ok=True, result="refused", count=1,
                   err=111, error="ECONNREFUSED"):
        self.phase(t, "rendezvous", "begin", dest=dest, role="rendezvous")
        if ok:
            self.line(t + 0.002, "connect", dest=dest, role="rendezvous", result="ok", errno=0,
                      error=None, count=1, first=self.mono0 + t, last=self.mono0 + t, dur=0.001)
            self.phase(t + 0.003, "rendezvous", "end", dest=dest, role="rendezvous", dur=0.003)
        else:
            for k in (1, 2, 4, 8, 16, 32):
                if k > count:
                    break
                self.line(t + k, "connect", dest=dest, role="rendezvous", result=result,
                          errno=err, error=error, count=k, first=self.mono0 + t,
                          last=self.mono0 + t + k, dur=0.001)
            if count not in (1, 2, 4, 8, 16, 32):
                self.line(t + count, "connect", dest=dest, role="rendezvous", result=result,
                          errno=err, error=error, count=count, first=self.mono0 + t,
                          last=self.mono0 + t + count, dur=0.001)
        return self

    def cuda(self, t, ordinal=None, uuid=None, count=8, visible=None, driver=12040,
             runtime=12020, result=0, error=None, stub=False, libcuda="/usr/lib/x86_64-linux-gnu/libcuda.so.1"):
        self.phase(t, "cuda_init", "begin", via="cuInit", caller="libcudart.so.12")
        if result != 0:
            self.phase(t + 0.1, "cuda_init", "error", via="cuInit", caller="libcudart.so.12",
                       result=result, error=error, libcuda=libcuda, stub=stub,
                       driver_version=None if stub else driver, runtime_version=runtime)
            return self
        self.phase(t + 0.5, "cuda_init", "end", via="cuInit", caller="libcudart.so.12",
                   result=0, error=None, libcuda=libcuda, stub=False, driver_version=driver,
                   runtime_version=runtime)
        self.line(t + 0.5, "version", what="cuda_driver", value=driver, provider=libcuda)
        self.line(t + 0.5, "version", what="cuda_runtime", value=runtime,
                  provider="/usr/lib/python3/dist-packages/nvidia/cuda_runtime/lib/libcudart.so.12")
        if ordinal is not None:
            self.phase(t + 0.6, "device", "begin", via="cudaSetDevice", ordinal=ordinal)
            self.phase(t + 0.9, "device", "end", via="cuDevicePrimaryCtxRetain", ordinal=ordinal,
                       uuid=uuid if uuid is not None else UUID % ordinal,
                       pci_bus_id="0000:%02x:00.0" % (0x18 + 8 * ordinal), device_count=count,
                       visible_devices=visible, local_rank=None)
        return self

    def cuda_error(self, t, fn, result, error, ordinal=None, after_fork=None):
        f = {"fn": fn, "result": result, "error": error}
        if ordinal is not None:
            f["ordinal"] = ordinal
        if after_fork is not None:
            f["after_fork"] = after_fork
        return self.line(t, "cuda", **f)

    def nccl_id(self, t, root="10.0.0.1:41234", id_hash="0x5be0cd19137e2179"):
        self.phase(t, "nccl_id", "begin")
        return self.phase(t + 0.01, "nccl_id", "end", root=root, magic="0x9a1f3c5d7e2b4a60",
                          fixed_magic=False, id_hash=id_hash, commid="0x" + id_hash[6:] + "00",
                          commid_old=None)

    def nccl_init(self, t, rank, nranks, root="10.0.0.1:41234", id_hash="0x5be0cd19137e2179",
                  comm="0x55d0c0a01000", end=True, result=0, error=None, last_error=None,
                  fn="ncclCommInitRank", version=22105, events=True):
        """events=False: only the phase lines (a family that writes no nccl lines)."""
        self.line(t, "version", what="nccl", value=version,
                  provider="/usr/lib/python3/dist-packages/nvidia/nccl/lib/libnccl.so.2")
        ids = dict(root=root, id_hash=id_hash, commid="0x" + id_hash[6:] + "00",
                   commid_old=None, fixed_magic=False, n_ids=1)
        if events:
            self.line(t, "nccl", fn=fn, state="begin", comm=None, nranks=nranks, rank=rank,
                      blocking=None, comm_name=None, nested=False, nccl_version=version, **ids)
        self.phase(t, "nccl_init", "begin", fn=fn, nranks=nranks, rank=rank, **ids)
        if result != 0:
            if events:
                self.line(t + 2, "nccl", fn=fn, state="error", comm=None, nranks=nranks,
                          rank=rank, result=result, error=error, last_error=last_error,
                          nested=False, **ids)
            self.phase(t + 2, "nccl_init", "error", fn=fn, result=result, error=error,
                       last_error=last_error)
        elif end:
            if events:
                self.line(t + 2, "nccl", fn=fn, state="end", comm=comm, nranks=nranks,
                          rank=rank, result=0, error=None, last_error=None, nested=False, **ids)
            self.phase(t + 2, "nccl_init", "end", fn=fn, comm=comm, nranks=nranks, rank=rank)
        return self

    def first_collective(self, t, comm="0x55d0c0a01000", seq=0, op="allreduce", count=1,
                         dtype="float32", redop="sum", root=-1, peer=-1):
        return self.phase(t, "first_collective", "begin", comm=comm, seq=seq, op=op,
                          count=count, dtype=dtype, redop=redop, root=root, peer=peer,
                          stream="0x55d0c0b02000")

    def steady(self, t):
        return self.phase(t, "steady", "begin", fn="cudaStreamSynchronize")

    def call(self, t, name, end=None, result=0, stalled=False):
        self.calls += 1
        cid = self.calls
        self.line(t, "call", name=name, state="begin", id=cid)
        if end is not None:
            self.line(end, "call", name=name, state="end", id=cid, result=result,
                      dur=end - t, stalled=stalled)
        return self

    def dump(self, t, reason, phase, n, frames, py=None, cpu=1.0, io=100000, state="S",
             calls=(), ring=(), total=None, phase_age=None, extra_threads=2, declared=None,
             name="python3", wchan=None, extra=()):
        """extra: more threads, as (name, frames, python) of answered ones."""
        self.dumps += 1
        d = self.dumps
        more = {} if declared is None else {"declared": declared}
        self.line(t, "stall", tid=self.pid + 1, dump=d, reason=reason, phase=phase,
                  phase_age=phase_age if phase_age is not None else t, n=n, deadline=60.0,
                  age=t, calls=[{"name": c, "tid": self.pid, "age": t - 1.0} for c in calls])
        th = {"dump": d, "tid": self.pid, "name": name, "main": True, "state": state,
              "cpu": cpu, "answered": wchan is None}
        if wchan is None:
            th["frames"] = ["ht__unwind_here (libhangtrace.so+0x9a1c)",
                            "ht__on_dump_signal (libhangtrace.so+0x8f00)",
                            "__restore_rt (libc.so.6+0x3c050)"] + list(frames)
        else:	# in D state: it does not answer, /proc says where
            th["wchan"] = wchan
            th["syscall"] = "0 0x3 0x7f3a2c000b20 0x100000 0x0 0x0 0x0 0x7ffd3c1e2a08 0x7f3a4e51a1b2"
        if py is not None:
            th["python"] = list(py)
        self.line(t + 0.001, "thread", **th)
        for k, (xname, xframes, xpy) in enumerate(extra):
            x = {"dump": d, "tid": self.pid + 20 + k, "name": xname, "main": False,
                 "state": "S", "cpu": 0.02, "answered": True,
                 "frames": ["ht__unwind_here (libhangtrace.so+0x9a1c)",
                            "__restore_rt (libc.so.6+0x3c050)"] + list(xframes)}
            if xpy is not None:
                x["python"] = list(xpy)
            self.line(t + 0.0015, "thread", **x)
        for k in range(extra_threads):
            self.line(t + 0.002, "thread", dump=d, tid=self.pid + 10 + k, name="pt_worker",
                      main=False, state="S", cpu=0.01, answered=True,
                      frames=["ht__unwind_here (libhangtrace.so+0x9a1c)",
                              "__restore_rt (libc.so.6+0x3c050)",
                              "syscall (libc.so.6+0x101e19)",
                              "_ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE "
                              "(libstdc++.so.6+0xd7930)",
                              "start_thread (libc.so.6+0x8a134)"])
        self.line(t + 0.003, "thread", dump=d, tid=self.pid + 1, name="hangtrace", main=False,
                  state="R", cpu=0.0, answered=False, hangtrace=True)
        return self.line(t + 0.004, "dump_end", tid=self.pid + 1, dump=d, dur=0.004, **more,
                         threads=3 + extra_threads + len(extra),
                         unanswered=0 if wchan is None else 1, unwinder="libunwind",
                         python="ok" if py is not None else None,
                         io={"rchar": io, "wchar": 4096, "syscr": 100, "syscw": 20,
                             "read_bytes": 0, "write_bytes": 0},
                         collectives=list(ring),
                         collectives_total=total if total is not None else len(ring))

    def stalls(self, t0, deadline, phase, frames, py=None, cpus=(1.0, 1.0, 1.0), ios=None,
               state="S", calls=(), ring=(), count=3, **kw):
        """The watchdog's dumps at 1, 2 and 4 times the deadline after t0
        (kw: more of dump's arguments)."""
        ios = ios or (100000,) * 3
        for i, k in enumerate((1, 2, 4)[:count]):
            self.dump(t0 + k * deadline, "timeout", phase, i + 1, frames, py, cpus[i], ios[i],
                      state, calls, ring, **kw)
        return self

    def exit(self, t, status=None, signal=None, after_dump=None):
        if signal is not None:
            return self.line(t, "exit", signal=signal, after_dump=bool(after_dump))
        return self.line(t, "exit", status=status)

    def write(self, d, truncate=None):
        with open(os.path.join(d, "%s.%d.jsonl" % (self.host, self.pid)), "w") as f:
            text = "".join(l + "\n" for l in self.lines)
            if truncate is not None:
                text = text[:-truncate]
            f.write(text)


# ---- stacks -------------------------------------------------------------------

NCCL_WAIT = ["poll (libc.so.6+0xf8a3f)",
             "ncclSocketPoll (libnccl.so.2+0x8d2a1)",
             "bootstrapRecv (libnccl.so.2+0x5e1c0)",
             "bootstrapInit (libnccl.so.2+0x60f11)",
             "ncclCommInitRankFunc (libnccl.so.2+0x7a4c2)",
             "ncclCommInitRankDev (libnccl.so.2+0x7c0a8)",
             "ncclCommInitRank (libnccl.so.2+0x7c5d3)",
             "_ZN4c10d8NCCLComm6createEiiP12ncclUniqueIdai (libtorch_cuda.so+0x11e5c80)",
             "_ZN4c10d16ProcessGroupNCCL11getNCCLCommEv (libtorch_cuda.so+0x11f0a1c)",
             "_ZN4c10d16ProcessGroupNCCL7barrierERKNS_14BarrierOptionsE (libtorch_cuda.so+0x1201b33)",
             "?? (libtorch_python.so+0x8d3e41)",
             "cfunction_call (python3.11+0x54b0e4)",
             "_PyEval_EvalFrameDefault (python3.11+0x52b9df)",
             "PyEval_EvalCode (python3.11+0x5236ba)",
             "Py_RunMain (python3.11+0x65007e)",
             "__libc_start_main (libc.so.6+0x27304)",
             "_start (python3.11+0x627bd0)"]
NCCL_PY = ["barrier (%s:4150)" % PY, "main (/work/train.py:31)", "<module> (/work/train.py:52)"]
STORE_WAIT = ["recv (libc.so.6+0x11a3c2)",
              "_ZN4c10d6detail9TCPClient4recvEv (libtorch_cpu.so+0x5a1b2c3)",
              "?? (python3.11+0x5d64b3)",
              "_PyEval_EvalFrameDefault (python3.11+0x52b9df)"]
STORE_PY = ["_create_c10d_store (/usr/lib/python3/dist-packages/torch/distributed/rendezvous.py:174)",
            "init_process_group (%s:1563)" % PY, "main (/work/train.py:29)",
            "<module> (/work/train.py:52)"]
LOAD = ["read (libc.so.6+0x10a1b2)",
        "_PyEval_EvalFrameDefault (python3.11+0x52b9df)",
        "PyEval_EvalCode (python3.11+0x5236ba)"]
LOAD_PY = ["load_checkpoint (/work/train.py:12)", "main (/work/train.py:27)",
           "<module> (/work/train.py:52)"]
CUINIT = ["ioctl (libc.so.6+0xfa27b)", "?? (libcuda.so.1+0x2c81f0)", "cuInit (libcuda.so.1+0x1f0b44)",
          "cudart::globalState::initializeDriver() (libcudart.so.12+0x2a13c)",
          "main (a.out+0x1189)", "__libc_start_main (libc.so.6+0x27304)"]
SYNC = ["sched_yield (libc.so.6+0xe5b7d)", "?? (libcuda.so.1+0x3a1b20)",
        "cuStreamSynchronize (libcuda.so.1+0x2e0b11)",
        "cudaStreamSynchronize (libcudart.so.12+0x4f2a0)"]


def job_ranks(d, n, hosts=("n1",), per_host=None, launcher="torchrun", ws=None, t=0.0,
              pid0=4000, **kw):
    """n rank processes, per_host ranks on each host in order."""
    per_host = per_host or n
    out = []
    for r in range(n):
        h = hosts[r // per_host]
        out.append(Proc(h, pid0 + r, rank=r, ws=ws if ws is not None else n, local=r % per_host,
                        launcher=launcher, t=t, **kw))
    return out


def startup(p, t=0.0, ordinal=None, rendezvous=True, **cuda):
    p.host_facts(t + 0.01)
    if rendezvous:
        p.rendezvous(t + 1.0)
    p.cuda(t + 2.0, ordinal=ordinal if ordinal is not None else p.rank % 8, **cuda)
    return p


def healthy_rank(p, nranks, t=0.0, comm="0x55d0c0a01000", **kw):
    startup(p, t, **kw)
    if p.rank == 0:
        p.nccl_id(t + 3.0)
    p.nccl_init(t + 3.5, p.rank, nranks, comm=comm)
    p.first_collective(t + 6.0, comm=comm)
    p.call(t + 6.1, "cudaStreamSynchronize", end=t + 6.2)
    p.steady(t + 6.2)
    return p


def stuck_in_init(p, nranks, t=0.0, deadline=60.0, cpus=(1.0, 1.01, 1.02), **kw):
    startup(p, t, **kw)
    if p.rank == 0:
        p.nccl_id(t + 3.0)
    p.nccl_init(t + 3.5, p.rank, nranks, end=False)
    p.call(t + 3.5, "ncclCommInitRank")
    p.stalls(t + 3.5, deadline, "nccl_init", NCCL_WAIT, NCCL_PY, cpus=cpus,
             calls=("ncclCommInitRank",))
    return p


# ---- the cases ------------------------------------------------------------------

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def healthy(d):
    """4 ranks on one host reach steady and exit 0: no verdict at all."""
    for p in job_ranks(d, 4, env={"MASTER_ADDR": "127.0.0.1"}):
        healthy_rank(p, 4)
        p.exit(20.0, status=0)
        p.write(d)


@case
def healthy_multihost(d):
    """8 ranks on two hosts in steady, still running, dumped on demand; the
    hosts' drivers differ (a warning, not an error)."""
    for p in job_ranks(d, 8, hosts=("n1", "n2"), per_host=4):
        healthy_rank(p, 8, ordinal=p.rank % 4, driver=12040 if p.host == "n1" else 12020)
        p.dump(30.0, "on_demand", "steady", 0, SYNC + NCCL_WAIT[-6:], None)
        p.write(d)


@case
def cancelled_steady(d):
    """Every rank reached steady, then the job was cancelled: SIGTERM, a
    dump at it, the signal's end. Not a hang: no verdict."""
    for p in job_ranks(d, 4):
        healthy_rank(p, 4)
        p.dump(600.0, "sigterm", "steady", 0, SYNC + NCCL_WAIT[-6:], NCCL_PY)
        p.exit(600.1, signal="SIGTERM", after_dump=True)
        p.write(d)


@case
def missing_rank(d):
    """World size 4, rank 2 never started; the others wait in NCCL init."""
    for p in job_ranks(d, 4):
        if p.rank == 2:
            continue
        stuck_in_init(p, 4)
        p.write(d)


@case
def missing_rank_early(d):
    """Rank 2 has no trace yet, the others only just started: a warning."""
    for p in job_ranks(d, 4):
        if p.rank == 2:
            continue
        startup(p)
        p.write(d)


@case
def missing_host(d):
    """8 ranks over 2 hosts; host n2 never started its ranks 4-7, its
    torchrun agent (an srun task) is stuck in the rendezvous."""
    agent = Proc("n2", 3900, rank=1, ws=2, local=0, launcher="slurm",
                 cmd=("/usr/bin/python3", "-m", "torch.distributed.run", "train.py"))
    agent.rendezvous(1.0, dest="10.0.0.1:29400", ok=False, result="timeout", count=6,
                     err=110, error="ETIMEDOUT")
    agent.write(d)
    for p in job_ranks(d, 8, hosts=("n1", "n2"), per_host=4)[:4]:
        stuck_in_init(p, 8)
        p.write(d)


@case
def rank_exited(d):
    """Rank 2 dies of SIGSEGV in cuda_init; the others wait in NCCL init."""
    for p in job_ranks(d, 4):
        if p.rank == 2:
            startup(p)
            p.phase(12.0, "nccl_id", "begin")
            p.exit(12.5, signal="SIGSEGV", after_dump=False)
        else:
            stuck_in_init(p, 4)
        p.write(d)


@case
def gave_up(d):
    """Rank 0 is still loading a checkpoint; ranks 1-3 stalled in NCCL init,
    then their own timeout ended them (status 1). Rank 0 is the cause."""
    for p in job_ranks(d, 4):
        if p.rank == 0:
            p.host_facts(0.01)
            p.stalls(0.0, 60.0, "launch", LOAD, LOAD_PY, cpus=(55.0, 110.0, 230.0),
                     ios=(1 << 30, 2 << 30, 4 << 30), state="D")
        else:
            stuck_in_init(p, 4)
            p.exit(245.0, status=1)
        p.write(d)


@case
def killed_waiting(d):
    """Every rank stalled in NCCL init, then Slurm sent SIGTERM: each rank
    dumped and died of it. Nobody is blamed for exiting."""
    for p in job_ranks(d, 4, launcher="slurm"):
        stuck_in_init(p, 4)
        p.dump(300.0, "sigterm", "nccl_init", 0, NCCL_WAIT, NCCL_PY)
        p.exit(300.1, signal="SIGTERM", after_dump=True)
        p.write(d)


@case
def vanished(d):
    """Rank 1 went silent in launch (SIGKILL: no exit record); the others
    wait in NCCL init long past the time its watchdog would have dumped."""
    for p in job_ranks(d, 4):
        if p.rank == 1:
            p.host_facts(0.01)
        else:
            stuck_in_init(p, 4)
        p.write(d)


@case
def straggler(d):
    """Rank 0 still loads a checkpoint (CPU and I/O advancing) while ranks
    1-7 wait for it in the store."""
    for p in job_ranks(d, 8):
        p.host_facts(0.01)
        if p.rank == 0:
            p.stalls(0.0, 60.0, "launch", LOAD, LOAD_PY, cpus=(55.0, 110.0, 230.0),
                     ios=(1 << 30, 2 << 30, 4 << 30), state="D")
        else:
            p.cuda(1.0, ordinal=p.rank)
            p.phase(2.0, "rendezvous", "begin", dest="10.0.0.1:29500", role="rendezvous")
            p.line(2.1, "connect", dest="10.0.0.1:29500", role="rendezvous", result="ok",
                   errno=0, error=None, count=1, first=p.mono0 + 2.0, last=p.mono0 + 2.0,
                   dur=0.001)
            p.stalls(2.0, 60.0, "rendezvous", STORE_WAIT, STORE_PY)
        p.write(d)


@case
def no_straggler_majority(d):
    """6 of 8 ranks are stuck in launch, 2 wait in the store: most ranks are
    behind, so no straggler is named; the stall is reported with stacks."""
    for p in job_ranks(d, 8):
        p.host_facts(0.01)
        if p.rank < 6:
            p.stalls(0.0, 60.0, "launch", LOAD, LOAD_PY)
        else:
            p.phase(2.0, "rendezvous", "begin", dest="10.0.0.1:29500", role="rendezvous")
            p.stalls(2.0, 60.0, "rendezvous", STORE_WAIT, STORE_PY)
        p.write(d)


@case
def world_size_mismatch(d):
    """Rank 3 was launched with WORLD_SIZE=8, the others with 4."""
    for p in job_ranks(d, 4):
        if p.rank == 3:
            p = Proc("n1", p.pid, rank=3, ws=8, local=3)
        stuck_in_init(p, 4)
        p.write(d)


@case
def duplicate_rank(d):
    """Two unrelated processes claim rank 1 at the same time, on n1 and n2."""
    for p in job_ranks(d, 4):
        stuck_in_init(p, 4)
        p.write(d)
    q = Proc("n2", 8001, rank=1, ws=4, local=1)
    stuck_in_init(q, 4, ordinal=0)
    q.write(d)


@case
def agents_not_duplicates(d):
    """srun starts a torchrun agent per host (Slurm ranks 0 and 1); each
    agent's workers hold torchrun ranks 0-1 and 2-3. The agent of n2 (Slurm
    rank 1) and worker rank 1 on n1 are not duplicates; all healthy."""
    for h, sr in (("n1", 0), ("n2", 1)):
        a = Proc(h, 3000 + sr, rank=sr, ws=2, local=0, launcher="slurm",
                 cmd=("/usr/bin/python3", "-m", "torch.distributed.run", "--nproc-per-node=2",
                      "train.py"))
        a.rendezvous(0.5, dest="10.0.0.1:29400")
        a.write(d)
        for lr in range(2):
            r = sr * 2 + lr
            p = Proc(h, 3100 + r, rank=r, ws=4, local=lr, ppid=3000 + sr, t=1.0)
            healthy_rank(p, 4, t=1.0, ordinal=lr)
            p.write(d)


@case
def restart_not_duplicate(d):
    """Rank 1's first process failed at once; torchrun restarted it with a
    new pid and it reached steady with the others: one rank, no verdict."""
    for p in job_ranks(d, 4):
        if p.rank == 1:
            old = Proc("n1", 4901, rank=1, ws=4, local=1)
            old.host_facts(0.01)
            old.exit(1.0, status=1)
            old.write(d)
            p = Proc("n1", 4951, rank=1, ws=4, local=1, t=5.0)
            healthy_rank(p, 4, t=5.0)
        else:
            healthy_rank(p, 4, t=5.0)
        p.write(d)


@case
def rendezvous_refused(d):
    """Ranks 2-3 on n2 are refused at 10.0.0.1:29500: rank 0's store listens
    only on 127.0.0.1. Ranks 0-1 wait in the store."""
    for p in job_ranks(d, 4, hosts=("n1", "n2"), per_host=2):
        p.host_facts(0.01)
        if p.host == "n1":
            if p.rank == 0:
                p.line(0.5, "listen", addr="127.0.0.1:29500", role="rendezvous")
            p.rendezvous(1.0, dest="127.0.0.1:29500")
            p.stalls(1.0, 60.0, "rendezvous", STORE_WAIT, STORE_PY)
        else:
            p.rendezvous(1.0, ok=False, count=34)
            p.stalls(1.0, 60.0, "rendezvous", STORE_WAIT, STORE_PY)
        p.write(d)


@case
def rendezvous_timeout(d):
    """Rank 1 on n2 gets no answer from 10.0.0.1:29500 (SYN_SENT at its dump)."""
    for p in job_ranks(d, 2, hosts=("n1", "n2"), per_host=1):
        p.host_facts(0.01)
        if p.rank == 0:
            p.line(0.5, "listen", addr="0.0.0.0:29500", role="rendezvous")
            p.rendezvous(1.0)
            p.stalls(1.0, 60.0, "rendezvous", STORE_WAIT, STORE_PY)
        else:
            p.phase(1.0, "rendezvous", "begin", dest="10.0.0.1:29500", role="rendezvous")
            for n, t in ((1, 61.0), (2, 121.0), (3, 241.0)):
                p.line(t, "stall", tid=p.pid + 1, dump=n, reason="timeout", phase="rendezvous",
                       phase_age=t - 1.0, n=n, deadline=60.0, age=t - 1.0,
                       calls=[{"name": "connect", "tid": p.pid, "age": t - 1.0}])
                p.line(t, "connect", tid=p.pid + 1, dest="10.0.0.1:29500", role="rendezvous",
                       result="pending", errno=115, error="EINPROGRESS", count=1,
                       first=p.mono0 + 1.0, last=p.mono0 + 1.0, dur=None, probe=True,
                       tcp_state="SYN_SENT")
                p.line(t + 0.01, "thread", dump=n, tid=p.pid, name="python3", main=True,
                       state="S", cpu=0.5, answered=True,
                       frames=["__restore_rt (libc.so.6+0x3c050)",
                               "connect (libc.so.6+0x11a0b7)", "?? (python3.11+0x5d64b3)"],
                       python=STORE_PY)
                p.line(t + 0.02, "dump_end", tid=p.pid + 1, dump=n, dur=0.02, threads=1,
                       unanswered=0, unwinder="libunwind", python="ok",
                       io={"rchar": 1000, "wchar": 10}, collectives=[], collectives_total=0)
        p.write(d)


@case
def rendezvous_unresolved(d):
    """MASTER_ADDR=node-0 does not resolve on n2."""
    for p in job_ranks(d, 2, hosts=("n1", "n2"), per_host=1, env={"MASTER_ADDR": "node-0"}):
        p.host_facts(0.01)
        if p.rank == 0:
            p.line(0.2, "resolve", what="MASTER_ADDR", name="node-0", addrs=["10.0.0.1"],
                   loopback=False, error=None)
            p.rendezvous(1.0, dest="10.0.0.1:29500")
        else:
            p.line(0.2, "resolve", what="MASTER_ADDR", name="node-0", addrs=[],
                   loopback=False, error="Name or service not known")
        p.stalls(1.0, 60.0, "launch" if p.rank else "rendezvous", STORE_WAIT, STORE_PY)
        p.write(d)


@case
def rendezvous_retry_ok(d):
    """The store came up after 5 refusals: normal, no verdict."""
    for p in job_ranks(d, 2):
        if p.rank == 1:
            p.rendezvous(0.5, ok=False, count=5)
            p.line(6.0, "connect", dest="10.0.0.1:29500", role="rendezvous", result="ok",
                   errno=0, error=None, count=1, first=p.mono0 + 6.0, last=p.mono0 + 6.0,
                   dur=0.001)
            p.phase(6.0, "rendezvous", "end", dest="10.0.0.1:29500", role="rendezvous", dur=5.5)
            p.cuda(7.0, ordinal=1)
        else:
            startup(p)
        p.nccl_init(8.0, p.rank, 2)
        p.first_collective(9.0)
        p.steady(9.1)
        p.exit(20.0, status=0)
        p.write(d)


@case
def master_addr_loopback(d):
    """MASTER_ADDR=localhost in a 2-host job: n2's ranks reach themselves."""
    for p in job_ranks(d, 4, hosts=("n1", "n2"), per_host=2, env={"MASTER_ADDR": "localhost"}):
        p.host_facts(0.01)
        p.line(0.2, "resolve", what="MASTER_ADDR", name="localhost", addrs=["127.0.0.1"],
               loopback=True, error=None)
        if p.host == "n1":
            if p.rank == 0:
                p.line(0.5, "listen", addr="0.0.0.0:29500", role="rendezvous")
            p.rendezvous(1.0, dest="127.0.0.1:29500")
        else:
            p.rendezvous(1.0, dest="127.0.0.1:29500", ok=False, count=34)
        p.stalls(1.0, 60.0, "rendezvous", STORE_WAIT, STORE_PY)
        p.write(d)


@case
def socket_ifname_missing(d):
    """NCCL_SOCKET_IFNAME=eth0 matches no interface; NCCL init fails."""
    for p in job_ranks(d, 2, env={"NCCL_SOCKET_IFNAME": "eth0"}):
        p.host_facts(0.01, ifname="eth0", match=())
        p.rendezvous(1.0)
        p.cuda(2.0, ordinal=p.rank)
        if p.rank == 0:
            p.phase(3.0, "nccl_id", "begin")
            p.phase(3.1, "nccl_id", "error", result=2, error="unhandled system error",
                    last_error="Bootstrap : no socket interface found")
            p.exit(3.5, status=1)
        else:
            p.phase(3.0, "rendezvous", "begin")
            p.stalls(3.0, 60.0, "device", STORE_WAIT, STORE_PY)
        p.write(d)


@case
def shm_too_small(d):
    """/dev/shm of 64 MiB; NCCL fails to create its segment."""
    msg = ("Error while creating shared memory segment /dev/shm/nccl-1YsMbG (size 9637888): "
           "No space left on device")
    for p in job_ranks(d, 2):
        p.host_facts(0.01, shm=64 << 20)
        p.rendezvous(1.0)
        p.cuda(2.0, ordinal=p.rank)
        p.nccl_init(3.0, p.rank, 2, result=2, error="unhandled system error", last_error=msg)
        p.exit(6.0, status=1)
        p.write(d)


@case
def unique_id_mismatch(d):
    """Ranks 6-7 were given an id from a stale store: same root, another id."""
    for p in job_ranks(d, 8):
        startup(p)
        h = "0x5be0cd19137e2179" if p.rank < 6 else "0x1f83d9abfb41bd6b"
        if p.rank == 0:
            p.nccl_id(3.0)
        p.nccl_init(3.5, p.rank, 8, id_hash=h, end=False)
        p.stalls(3.5, 60.0, "nccl_init", NCCL_WAIT, NCCL_PY)
        p.write(d)


@case
def subgroups_ok(d):
    """Two communicators of 4 (new_group), different roots and ids, both
    complete; everything reaches steady: no unique_id_mismatch."""
    for p in job_ranks(d, 8):
        startup(p)
        g = p.rank // 4
        root = "10.0.0.1:4123%d" % g
        h = ("0x5be0cd19137e2179", "0x1f83d9abfb41bd6b")[g]
        p.nccl_init(3.5, p.rank % 4, 4, root=root, id_hash=h, comm="0x55d0c0a0%d000" % g)
        p.first_collective(6.0, comm="0x55d0c0a0%d000" % g)
        p.steady(6.2)
        p.write(d)


@case
def duplicate_gpu(d):
    """Every rank bound GPU 0 (no set_device); NCCL init hangs."""
    for p in job_ranks(d, 4):
        stuck_in_init(p, 4, ordinal=0)
        p.write(d)


@case
def too_many_local_ranks(d):
    """8 ranks on a host with 4 GPUs: ranks 4-7 ask for a device that does not exist."""
    for p in job_ranks(d, 8):
        p.host_facts(0.01)
        p.rendezvous(1.0)
        if p.rank < 4:
            p.cuda(2.0, ordinal=p.rank, count=4)
            p.nccl_init(3.5, p.rank, 8, end=False)
            p.stalls(3.5, 60.0, "nccl_init", NCCL_WAIT, NCCL_PY)
        else:
            p.cuda(2.0, count=4)
            p.line(2.6, "cuda", fn="cuDeviceGet", result=101, error="CUDA_ERROR_INVALID_DEVICE",
                   ordinal=p.rank, count=4)
            p.exit(3.0, status=1)
        p.write(d)


@case
def visible_devices_inconsistent(d):
    """CUDA_VISIBLE_DEVICES=$LOCAL_RANK and set_device(LOCAL_RANK) together:
    ranks 1-3 ask for device N of a one-GPU list."""
    for p in job_ranks(d, 4):
        p.lines.clear()
        q = Proc("n1", p.pid, rank=p.rank, ws=4, local=p.rank,
                 env={"CUDA_VISIBLE_DEVICES": str(p.rank)})
        q.host_facts(0.01)
        q.rendezvous(1.0)
        if p.rank == 0:
            q.cuda(2.0, ordinal=0, count=1, visible="0")
            q.nccl_init(3.5, 0, 4, end=False)
            q.stalls(3.5, 60.0, "nccl_init", NCCL_WAIT, NCCL_PY)
        else:
            q.cuda(2.0, count=1)
            q.line(2.6, "cuda", fn="cuDeviceGet", result=101, error="CUDA_ERROR_INVALID_DEVICE",
                   ordinal=p.rank, count=1)
            q.phase(2.6, "device", "begin", via="cudaSetDevice", ordinal=p.rank)
            q.phase(2.7, "device", "error", via="cudaSetDevice", ordinal=p.rank, device_count=1,
                    visible_devices=str(p.rank), result=101, error="CUDA_ERROR_INVALID_DEVICE")
            q.exit(3.0, status=1)
        q.write(d)


@case
def cvd_ok(d):
    """One GPU per rank through CUDA_VISIBLE_DEVICES, each rank on device 0."""
    for p in job_ranks(d, 4):
        q = Proc("n1", p.pid, rank=p.rank, ws=4, local=p.rank,
                 env={"CUDA_VISIBLE_DEVICES": str(p.rank)})
        healthy_rank(q, 4, ordinal=0, uuid=UUID % p.rank, count=1, visible=str(p.rank))
        q.exit(20.0, status=0)
        q.write(d)


@case
def cuda_init_failed(d):
    """cuInit fails with CUDA_ERROR_NO_DEVICE on rank 1."""
    for p in job_ranks(d, 2):
        p.host_facts(0.01)
        p.rendezvous(1.0)
        if p.rank == 1:
            p.cuda(2.0, result=100, error="CUDA_ERROR_NO_DEVICE")
            p.exit(2.5, status=1)
        else:
            p.cuda(2.0, ordinal=0)
            p.nccl_id(3.0)
            p.nccl_init(3.5, 0, 2, end=False)
            p.stalls(3.5, 60.0, "nccl_init", NCCL_WAIT, NCCL_PY)
        p.write(d)


@case
def stub_driver(d):
    """The toolkit's stub libcuda answered cuInit (error 34) on both ranks."""
    for p in job_ranks(d, 2):
        p.host_facts(0.01)
        p.cuda(2.0, result=34, error="CUDA_ERROR_STUB_LIBRARY", stub=True,
               libcuda="/usr/local/cuda/lib64/stubs/libcuda.so")
        p.exit(2.5, status=1)
        p.write(d)


@case
def stub_driver_two_hosts(d):
    """The stub on two hosts of 8 ranks each: the verdict names both hosts."""
    for p in job_ranks(d, 16, hosts=("n1", "n2"), per_host=8):
        p.host_facts(0.01)
        p.cuda(2.0, result=34, error="CUDA_ERROR_STUB_LIBRARY", stub=True,
               libcuda="/usr/local/cuda/lib64/stubs/libcuda.so")
        p.exit(2.5, status=1)
        p.write(d)


@case
def driver_too_old(d):
    """Driver 11.4 under a CUDA 12.2 runtime: error 35."""
    for p in job_ranks(d, 2):
        p.host_facts(0.01)
        p.cuda(2.0, result=35, error="CUDA_ERROR_INSUFFICIENT_DRIVER", driver=11040,
               runtime=12020)
        p.exit(2.5, status=1)
        p.write(d)


@case
def driver_too_old_runtime(d):
    """The CUDA 13 runtime asks the driver's version, gets 12.8 and stops
    before cuInit (the two version lines are all there is); the program
    exits 1."""
    p = Proc("n1", 4000, rank=0, ws=1, local=0, launcher="env")
    p.host_facts(0.01)
    p.line(0.5, "version", what="cuda_driver", value=12080,
           provider="/usr/lib/x86_64-linux-gnu/libcuda.so.1")
    p.line(0.5, "version", what="cuda_runtime", value=13000,
           provider="/usr/local/cuda/lib64/libcudart.so.13")
    p.exit(0.6, status=1)
    p.write(d)


@case
def fork_after_cuda_init(d):
    """Rank 0 initialised CUDA, then forked a DataLoader worker that calls
    CUDA (its cuInit: CUDA_ERROR_INITIALIZATION_ERROR) and hangs; rank 1 waits."""
    for p in job_ranks(d, 2):
        startup(p)
        if p.rank == 0:
            p.nccl_id(3.0)
            p.line(3.2, "fork", child=4100, cuda_initialized=True)
            c = Proc("n1", 4100, rank=0, ws=2, local=0, ppid=p.pid, t=3.2, relevant="fork",
                     fork_parent=p.pid, cuda_inherited=True)
            c.phase(3.3, "cuda_init", "begin", fn="cuInit", via="dlsym", caller="libcudart.so.12",
                    runtime_version=12020)
            c.phase(3.3, "cuda_init", "error", fn="cuInit", via="dlsym", caller="libcudart.so.12",
                    result=3, error="CUDA_ERROR_INITIALIZATION_ERROR",
                    libcuda="/usr/lib/x86_64-linux-gnu/libcuda.so.1", stub=False,
                    driver_version=None, runtime_version=12020, lookups=0)
            c.cuda_error(3.3, "cuInit", 3, "CUDA_ERROR_INITIALIZATION_ERROR", after_fork=True)
            c.line(63.3, "cuda", fn="cuMemAlloc", result=None, error=None, after_fork=True,
                   hung=True)
            c.write(d)
            p.call(3.5, "cudaStreamSynchronize")
            p.stalls(3.5, 60.0, "nccl_id", SYNC, ["__iter__ (/work/data.py:40)",
                                                  "main (/work/train.py:35)"])
        else:
            p.nccl_init(3.5, 1, 2, end=False)
            p.stalls(3.5, 60.0, "nccl_init", NCCL_WAIT, NCCL_PY)
        p.write(d)


@case
def version_mismatch(d):
    """Rank 3 on n2 loads NCCL 2.18.3, ranks 0-2 on n1 2.21.5; init hangs."""
    for p in job_ranks(d, 4, hosts=("n1", "n1", "n1", "n2"), per_host=1):
        startup(p, ordinal=p.rank % 3)
        if p.rank == 0:
            p.nccl_id(3.0)
        p.nccl_init(3.5, p.rank, 4, end=False, version=21803 if p.rank == 3 else 22105)
        p.stalls(3.5, 60.0, "nccl_init", NCCL_WAIT, NCCL_PY)
        p.write(d)


@case
def nccl_init_error(d):
    """ncclCommInitRank returns ncclInvalidUsage on rank 3 (its message quoted)."""
    for p in job_ranks(d, 4):
        if p.rank == 3:
            startup(p)
            p.nccl_init(3.5, 3, 4, result=5, error="invalid usage",
                        last_error="Duplicate GPU detected : rank 3 and rank 0 both on CUDA "
                                   "device 18000")
            p.exit(6.0, status=1)
        else:
            stuck_in_init(p, 4)
        p.write(d)


@case
def nccl_phase_only(d):
    """The same failure told by the nccl_init phase lines alone (no nccl
    lines): rank 1's init fails with NCCL's message, rank 0 waits."""
    for p in job_ranks(d, 2):
        startup(p)
        if p.rank == 1:
            p.nccl_init(3.5, 1, 2, result=2, error="unhandled system error",
                        last_error="socketStartConnect: Connect to 10.0.0.1<41234> failed : "
                                   "Connection refused", events=False)
            p.exit(6.0, status=1)
        else:
            p.nccl_id(3.0)
            p.nccl_init(3.5, 0, 2, end=False, events=False)
            p.stalls(3.5, 60.0, "nccl_init", NCCL_WAIT, NCCL_PY)
        p.write(d)


def ring(comm, upto, odd=None):
    out = []
    for s in range(upto + 1):
        e = {"comm": comm, "seq": s, "op": "allreduce", "count": 1024, "dtype": "float32",
             "redop": "sum", "root": -1, "peer": -1, "mono": 5010.0 + s}
        if odd is not None and s == odd[0]:
            e.update(odd[1])
        out.append(e)
    return out


@case
def collective_mismatch(d):
    """At collective #5 rank 3 issued a broadcast while the others issued an
    allreduce; all wait."""
    for p in job_ranks(d, 4):
        comm = "0x55d0c0a0%d000" % p.rank
        startup(p)
        p.nccl_init(3.5, p.rank, 4, comm=comm)
        p.first_collective(6.0, comm=comm, count=1024)
        odd = (5, {"op": "broadcast", "redop": None, "root": 0, "peer": 0}) if p.rank == 3 else None
        p.stalls(6.0, 60.0, "first_collective", SYNC, NCCL_PY, ring=ring(comm, 5, odd))
        p.write(d)


@case
def collective_lag(d):
    """Ranks 0-2 wait in collective #5; rank 3 has issued only up to #4."""
    for p in job_ranks(d, 4):
        comm = "0x55d0c0a0%d000" % p.rank
        startup(p)
        p.nccl_init(3.5, p.rank, 4, comm=comm)
        p.first_collective(6.0, comm=comm, count=1024)
        p.stalls(6.0, 60.0, "first_collective", SYNC, NCCL_PY,
                 ring=ring(comm, 4 if p.rank == 3 else 5))
        p.write(d)


@case
def lag_gave_up(d):
    """Ranks 0-2 wait in collective #5, rank 3 has issued only up to #4;
    then ranks 1-2 give up (their own timeout, status 1). Rank 3 is the
    cause, the ranks that gave up come after it."""
    for p in job_ranks(d, 4):
        comm = "0x55d0c0a0%d000" % p.rank
        startup(p)
        p.nccl_init(3.5, p.rank, 4, comm=comm)
        p.first_collective(6.0, comm=comm, count=1024)
        p.stalls(6.0, 60.0, "first_collective", SYNC, NCCL_PY,
                 ring=ring(comm, 4 if p.rank == 3 else 5))
        if p.rank in (1, 2):
            p.exit(250.0, status=1)
        p.write(d)


@case
def slow_then_failed(d):
    """World size 5, rank 4 never started. Rank 3 was slow in launch (its
    imports: the stack moved between its dumps), then raised and exited 1;
    ranks 0-2 wait in the store. Rank 3 failed, it did not give up waiting."""
    for p in job_ranks(d, 4, ws=5):
        p.host_facts(0.01)
        if p.rank == 3:
            p.dump(60.0, "timeout", "launch", 1, LOAD, ["<module> (/usr/lib/python3/dist-packages/"
                   "torch/__init__.py:750)", "<module> (/work/train.py:3)"], cpu=50.0, state="R")
            p.dump(120.0, "timeout", "launch", 2, LOAD, LOAD_PY, cpu=110.0, state="R")
            p.exit(130.0, status=1)
        else:
            p.rendezvous(1.0)
            p.stalls(1.0, 60.0, "rendezvous", STORE_WAIT, STORE_PY)
        p.write(d)


@case
def duplicate_rank_same_host(d):
    """Two processes hold rank 0 on one host: the second was started by
    mistake at 6.5 s while the first ran; the first finished with ranks 1-3
    at 7 s, the second waits in NCCL init for peers that never come. On one
    host the clocks are exact: it ran beside the first, no restart."""
    for p in job_ranks(d, 4):
        healthy_rank(p, 4)
        p.exit(7.0, status=0)
        p.write(d)
    q = Proc("n1", 4900, rank=0, ws=4, local=0, t=6.5)
    stuck_in_init(q, 4, t=6.5)
    q.write(d)


@case
def launcher_short(d):
    """mpirun -np 3 of a program whose communicator has 4 ranks: ranks 0-2
    (an Open MPI world of 3) wait in NCCL init for rank 3, never started."""
    for p in job_ranks(d, 3, launcher="openmpi",
                       env={"OMPI_COMM_WORLD_SIZE": "3"}):
        stuck_in_init(p, 4)
        p.write(d)


@case
def gpus_per_process_ok(d):
    """An Open MPI world of 2 processes, each driving 4 GPUs as 4 ranks of
    one communicator of 8 (ncclCommInitRank in a group): all steady, the
    communicator larger than the world is no missing rank."""
    for p in job_ranks(d, 2, launcher="openmpi"):
        startup(p)
        if p.rank == 0:
            p.nccl_id(3.0)
        for g in range(4):
            p.nccl_init(3.5, p.rank * 4 + g, 8, comm="0x55d0c0a0%d000" % g)
        p.first_collective(6.0, comm="0x55d0c0a00000")
        p.call(6.1, "cudaStreamSynchronize", end=6.2)
        p.steady(6.2)
        p.exit(20.0, status=0)
        p.write(d)


@case
def cvd_overlap(d):
    """Overlapping per-rank lists CUDA_VISIBLE_DEVICES=r,r+1 and the device
    picked by LOCAL_RANK: rank 1 gets GPU 2, rank 2 asks for device 2 of a
    list of two, fails before binding any GPU (the runtime refuses the
    ordinal: no driver call shows it) and exits 1; ranks 0-1 wait."""
    for p in job_ranks(d, 3):
        p.lines.clear()
        vis = "%d,%d" % (p.rank, p.rank + 1)
        q = Proc("n1", p.pid, rank=p.rank, ws=3, local=p.rank,
                 env={"CUDA_VISIBLE_DEVICES": vis})
        q.host_facts(0.01)
        q.rendezvous(1.0)
        if p.rank < 2:
            q.cuda(2.0, ordinal=p.rank, uuid=UUID % (2 * p.rank), count=2, visible=vis)
            if p.rank == 0:
                q.nccl_id(3.0)
            q.nccl_init(3.5, p.rank, 3, end=False)
            q.stalls(3.5, 60.0, "nccl_init", NCCL_WAIT, NCCL_PY)
        else:
            q.cuda(2.0)
            q.exit(2.6, status=1)
        q.write(d)


@case
def stalled_all(d):
    """Every rank waits in NCCL init with the same stack, nothing advancing,
    no cause found: one stalled verdict, blocked."""
    for p in job_ranks(d, 4):
        stuck_in_init(p, 4, cpus=(2.0, 2.0, 2.0))
        p.write(d)


@case
def unranked(d):
    """A plain CUDA program without a launcher hangs in cuInit."""
    p = Proc("n1", 5000, relevant="cuda", cmd=("./a.out",), exe="/work/a.out")
    p.host_facts(0.01)
    p.phase(0.02, "cuda_init", "begin", via="cuInit", caller="a.out")
    p.call(0.02, "cuInit")
    p.stalls(0.02, 60.0, "cuda_init", CUINIT, None)
    p.write(d)


@case
def wrappers(d):
    """srun bash train.sh: bash (Slurm rank 0) runs python (the rank's main
    process), which forked a DataLoader worker; rank 1 alike. All steady."""
    for r in range(2):
        b = Proc("n1", 6000 + r * 10, rank=r, ws=2, local=r, launcher="slurm",
                 cmd=("/bin/bash", "train.sh"), exe="/usr/bin/bash")
        b.write(d)
        p = Proc("n1", 6001 + r * 10, rank=r, ws=2, local=r, launcher="slurm", ppid=6000 + r * 10,
                 t=0.1)
        healthy_rank(p, 2, t=0.1)
        p.line(7.0, "fork", child=6002 + r * 10, cuda_initialized=True)
        p.write(d)
        w = Proc("n1", 6002 + r * 10, rank=r, ws=2, local=r, launcher="slurm", ppid=6001 + r * 10,
                 t=7.0, relevant="fork", fork_parent=6001 + r * 10, cuda_inherited=True)
        w.write(d)


@case
def exec_and_reuse(d):
    """A process that exec'd (its file continues) and a file holding two
    records (the pid reused by a later attempt of rank 1): both healthy."""
    p = Proc("n1", 7000, rank=0, ws=2, local=0, cmd=("/bin/sh", "run.sh"), exe="/usr/bin/dash")
    p.line(0.5, "exec", path="/usr/bin/python3.11", rank=0, dump_signal=63,
           cmdline=["/usr/bin/python3", "train.py"])
    p.phase(0.5, "launch", "begin")
    healthy_rank(p, 2, t=0.5)
    p.write(d)
    old = Proc("n2", 7001, rank=1, ws=2, local=0, t=-3600.0)
    old.exit(-3500.0, status=0)
    q = Proc("n2", 7001, rank=1, ws=2, local=0)
    healthy_rank(q, 2, ordinal=0)
    with open(os.path.join(d, "n2.7001.jsonl"), "w") as f:
        f.write("".join(l + "\n" for l in old.lines + q.lines))


@case
def bad_files(d):
    """Damaged input: a truncated last line, an unknown event type, a file
    that is not a trace, an empty file; the two ranks are still read."""
    for p in job_ranks(d, 2):
        healthy_rank(p, 2)
        if p.rank == 0:
            p.line(7.0, "gpu_temperature", celsius=71)
            p.line(8.0, "exit", status=0)
            p.write(d, truncate=9)
        else:
            p.line(7.5, "gpu_temperature", celsius=70)
            p.write(d)
    with open(os.path.join(d, "notes.jsonl"), "w") as f:
        f.write('{"step": 1, "loss": 2.5}\n')
    open(os.path.join(d, "n1.4999.jsonl"), "w").close()
    with open(os.path.join(d, "n1.4998.jsonl"), "w") as f:
        hdr = Proc("n1", 4998, rank=None, relevant="cuda")
        f.write(hdr.lines[0] + "\n" + "this is not JSON\n" + hdr.lines[1] + "\n")


@case
def not_a_trace(d):
    """Nothing but a file that is not a trace: nothing can be read."""
    with open(os.path.join(d, "metrics.jsonl"), "w") as f:
        f.write('{"step": 1, "loss": 2.5}\n{"step": 2, "loss": 2.4}\n')


# ---- who waits for whom: the root cause first (SPEC section 8) ------------------

TORCH_LOAD_PY = ["_load (/usr/lib/python3/dist-packages/torch/serialization.py:1172)",
                 "load (/usr/lib/python3/dist-packages/torch/serialization.py:809)",
                 "main (/work/train.py:27)", "<module> (/work/train.py:52)"]
GLOO_BARRIER_PY = ["barrier (%s:3330)" % PY, "main (/work/train.py:33)",
                   "<module> (/work/train.py:52)"]
GLOO_WAIT = ["syscall (libc.so.6+0x101e19)",
             "_ZN4gloo9transport3tcp4Pair4recvEv (libtorch_cpu.so+0x4a1b2c0)",
             "_ZN4c10d16ProcessGroupGloo9AsyncWork4waitEv (libtorch_cpu.so+0x4a0a1c0)",
             "_PyEval_EvalFrameDefault (python3.11+0x52b9df)"]
MPI_BARRIER = ["opal_progress (libopen-pal.so.40+0x2d4f4)",
               "ompi_request_default_wait_all (libmpi.so.40+0x5a1b2)",
               "ompi_coll_base_barrier_intra_recursivedoubling (libmpi.so.40+0xa1c2d)",
               "PMPI_Barrier (libmpi.so.40+0x6f1a3)",
               "?? (MPI.cpython-311-x86_64-linux-gnu.so+0x1a2b3c)",
               "_PyEval_EvalFrameDefault (python3.11+0x52b9df)"]
MPI_PY = ["main (/work/mpi_job.py:14)", "<module> (/work/mpi_job.py:20)"]
SLEEP = ["clock_nanosleep (libc.so.6+0xe5b7d)", "?? (python3.11+0x5d64b3)",
         "_PyEval_EvalFrameDefault (python3.11+0x52b9df)"]
SLEEP_PY = ["main (/work/train.py:30)", "<module> (/work/train.py:52)"]
MONITORED_PY = ["monitored_barrier (%s:3410)" % PY, "main (/work/train.py:33)",
                "<module> (/work/train.py:52)"]
JAX_PY = ["initialize (/venv/lib/python3.11/site-packages/jax/_src/distributed.py:90)",
          "initialize (/venv/lib/python3.11/site-packages/jax/_src/distributed.py:196)",
          "<module> (/work/jax_job.py:12)"]
GRPC_WAIT = ["syscall (libc.so.6+0x101e19)",
             "_ZN3xla24CoordinationServiceAgent7ConnectEv (xla_extension.so+0x1a2b3c4)",
             "_PyEval_EvalFrameDefault (python3.11+0x52b9df)"]


def cpu_rank(d, r, ws, launcher="env", **kw):
    """A rank of a CPU job (gloo, MPI, JAX on CPU): no CUDA, no NCCL."""
    return Proc("n1", 4000 + r, rank=r, ws=ws, local=r, launcher=launcher, **kw)


@case
def store_host_loading(d):
    """Rank 0 hosts the c10d store but is still in torch.load; ranks 1-3 are
    refused at MASTER_ADDR:MASTER_PORT and wait in the store. The refusals
    follow from rank 0 being late: straggler first, then
    rendezvous_unreachable because of it."""
    for r in range(4):
        p = cpu_rank(d, r, 4)
        p.host_facts(0.01)
        if r == 0:
            p.stalls(0.5, 60.0, "launch", LOAD, TORCH_LOAD_PY, cpus=(50.0, 110.0, 230.0),
                     ios=(1 << 30, 2 << 30, 4 << 30), state="D")
        else:
            p.rendezvous(1.0, ok=False, count=200)
            p.stalls(1.0, 60.0, "rendezvous", STORE_WAIT, STORE_PY)
        p.write(d)


@case
def store_host_killed(d):
    """store_host_loading, then `timeout` sent SIGTERM to every rank at once
    (no dump at the signal); rank 3's connect was interrupted and it ended
    with status 1 a moment after (PyTorch 1.13's TCPStore raises on EINTR):
    job.ended killed, the same first verdict as while it hung, nobody
    blamed for its end."""
    for r in range(4):
        p = cpu_rank(d, r, 4)
        p.host_facts(0.01)
        if r == 0:
            p.stalls(0.5, 60.0, "launch", LOAD, TORCH_LOAD_PY, cpus=(50.0, 110.0, 230.0),
                     ios=(1 << 30, 2 << 30, 4 << 30), state="D")
        else:
            p.rendezvous(1.0, ok=False, count=200)
            p.stalls(1.0, 60.0, "rendezvous", STORE_WAIT, STORE_PY)
        if r == 3:
            p.exit(300.3, status=1)
        else:
            p.exit(300.0 + 0.05 * r, signal="SIGTERM", after_dump=False)
        p.write(d)


@case
def wrong_port(d):
    """Rank 3 was given MASTER_PORT 29501: refused there for good. Ranks 1-2
    were refused once at 29500 before rank 0 opened it, then connected;
    ranks 0-2 wait in the gloo barrier for rank 3."""
    for r in range(4):
        port = "29501" if r == 3 else "29500"
        p = cpu_rank(d, r, 4, env={"MASTER_ADDR": "10.0.0.1", "MASTER_PORT": port})
        p.host_facts(0.01)
        dest = "10.0.0.1:" + port
        if r == 0:
            p.line(0.5, "listen", addr="0.0.0.0:29500", role="rendezvous")
            p.rendezvous(1.0, dest=dest)
        elif r < 3:
            p.rendezvous(0.2, dest=dest, ok=False, count=1)
            p.line(1.0, "connect", dest=dest, role="rendezvous", result="ok", errno=0,
                   error=None, count=1, first=p.mono0 + 1.0, last=p.mono0 + 1.0, dur=0.001)
            p.phase(1.0, "rendezvous", "end", dest=dest, role="rendezvous", dur=0.8)
        else:
            p.rendezvous(0.2, dest=dest, ok=False, count=120)
        if r < 3:
            p.stalls(2.0, 60.0, "rendezvous", GLOO_WAIT, GLOO_BARRIER_PY)
        else:
            p.stalls(0.2, 60.0, "rendezvous", STORE_WAIT, STORE_PY)
        p.write(d)


@case
def mpi_load_before_barrier(d):
    """mpi4py on Open MPI, all ranks in launch: rank 2 is in a
    load_checkpoint of its own (reading) while ranks 0-1 wait in
    MPI_Barrier. Rank 2 is the straggler, found by what it does."""
    for r in range(3):
        p = cpu_rank(d, r, 3, launcher="openmpi", cmd=("/usr/bin/python3", "mpi_job.py"))
        p.host_facts(0.01)
        if r == 2:
            p.stalls(0.5, 60.0, "launch", LOAD, LOAD_PY, cpus=(5.0, 10.0, 20.0),
                     ios=(1 << 28, 2 << 28, 4 << 28), state="D")
        else:
            p.stalls(0.5, 60.0, "launch", MPI_BARRIER, MPI_PY, cpus=(58.0, 118.0, 238.0))
        p.write(d)


@case
def mpi_raise_after_sleep(d):
    """mpi4py on Open MPI (tests/e2e/jobs.sh "rank 1 raises", kept from a
    run on a loaded host): rank 1 sleeps in its own code, is declared
    stalled (no progress, no wait point: its main thread was not unwound,
    only its Python frames are known) and then raises (status 1); ranks 0
    and 2 wait in MPI_Barrier and are then killed by mpirun's SIGTERM;
    rank 2's SIGTERM dump came while its main thread was in the library's
    handler and did not answer (no native frames). Rank 1 failed on its own (no "gave up
    waiting"): rank_exited [1] first; ranks 0 and 2 are where their
    earlier dumps saw them, in MPI_Barrier (not "working")."""
    for r in range(3):
        p = cpu_rank(d, r, 3, launcher="openmpi", cmd=("/usr/bin/python3", "mpi_job.py"))
        p.host_facts(0.01)
        if r == 1:
            for n, t in ((1, 60.5), (2, 120.5)):
                p.dump(t, "timeout", "launch", n, (), SLEEP_PY, cpu=0.05, declared=True,
                       wchan="hrtimer_nanosleep")
            p.exit(150.0, status=1)
        else:
            for n, t in ((1, 60.5), (2, 120.5)):
                p.dump(t, "timeout", "launch", n, MPI_BARRIER, MPI_PY, cpu=0.06, state="R",
                       declared=True)
            if r == 0:	# its SIGTERM landed on another thread
                p.dump(150.1, "sigterm", "launch", 0, MPI_BARRIER, MPI_PY, cpu=0.08, state="R")
            else:
                p.dump(150.1, "sigterm", "launch", 0, (), MPI_PY, cpu=0.08,
                       wchan="hrtimer_nanosleep")
            p.exit(150.2, signal="SIGTERM", after_dump=True)
        p.write(d)


LATE_WORK = ["compute (mpi_loop+0x1b2c)", "late_work (mpi_loop+0x1c40)",
             "main (mpi_loop+0x1f0a)", "__libc_start_main (libc.so.6+0x27304)"]
C_BARRIER = ["__sched_yield (libc.so.6+0xee017)",
             "ompi_request_default_wait (libmpi.so.40+0x51dc2)",
             "ompi_coll_base_barrier_intra_recursivedoubling (libmpi.so.40+0xbb8a2)",
             "MPI_Barrier (libmpi.so.40+0x6b567)", "main (mpi_loop+0x1f2e)",
             "__libc_start_main (libc.so.6+0x27304)"]


@case
def mpi_abort_torn_down(d):
    """A C-only MPI job (tests/frameworks/mpi_c.sh, --on-stall abort):
    rank 2 computes in its own code (late_work) while ranks 0-1 wait in
    MPI_Barrier. Rank 1 is declared stalled at its first look (idle at the
    barrier) and aborted by the library; mpirun then kills ranks 0 and 2
    with SIGTERM, each dumped on it (rank 0 still in MPI_Barrier, rank 2
    still working). Their deaths follow from the teardown: straggler [2]
    first, no rank_exited."""
    for r in range(3):
        p = cpu_rank(d, r, 3, launcher="openmpi", cmd=("./mpi_loop", "late", "8", "2"),
                     exe="/work/mpi_loop")
        p.host_facts(0.01)
        if r == 1:
            p.dump(60.5, "timeout", "launch", 1, C_BARRIER, cpu=0.3, state="R",
                   calls=("MPI_Barrier",), declared=True)
            p.line(60.7, "signal", signal="SIGABRT", chained="handler")
        elif r == 0:
            p.dump(60.5, "timeout", "launch", 1, C_BARRIER, cpu=0.3, state="R",
                   calls=("MPI_Barrier",), declared=False)
            p.dump(61.7, "sigterm", "launch", 0, C_BARRIER, cpu=0.4, state="R",
                   calls=("MPI_Barrier",))
            p.exit(61.71, signal="SIGTERM", after_dump=True)
        else:
            p.dump(60.5, "timeout", "launch", 1, LATE_WORK, cpu=40.0, state="R",
                   declared=False)
            p.phase(60.51, "steady", "begin", via="progress")
            p.dump(61.7, "sigterm", "steady", 0, LATE_WORK, cpu=41.0, state="R")
            p.exit(61.71, signal="SIGTERM", after_dump=True)
        p.write(d)


@case
def barrier_never_reached(d):
    """Rank 1 never calls dist.barrier(): it sleeps; ranks 0, 2, 3 wait in
    the gloo barrier. Rank 1 is the straggler."""
    for r in range(4):
        p = cpu_rank(d, r, 4)
        p.host_facts(0.01)
        p.rendezvous(1.0)
        if r == 1:
            p.stalls(2.0, 60.0, "rendezvous", SLEEP, SLEEP_PY)
        else:
            p.stalls(2.0, 60.0, "rendezvous", GLOO_WAIT, GLOO_BARRIER_PY)
        p.write(d)


@case
def monitored_barrier(d):
    """monitored_barrier timed out on rank 0 (it raised, status 1) because
    rank 1 never came (it sleeps): straggler rank 1 first, then rank_exited
    rank 0 because of it."""
    for r in range(2):
        p = cpu_rank(d, r, 2)
        p.host_facts(0.01)
        p.rendezvous(1.0)
        if r == 1:
            p.stalls(2.0, 60.0, "rendezvous", SLEEP, SLEEP_PY)
        else:
            p.stalls(2.0, 60.0, "rendezvous", GLOO_WAIT, MONITORED_PY, count=2)
            p.exit(180.0, status=1)
        p.write(d)


@case
def helper_exit(d):
    """Rank 0 runs a helper (`which hipcc`, its identity inherited) that
    exits 1 while rank 0 goes on and then waits in the gloo barrier with
    rank 1. The helper is not the rank, its status is not the rank's."""
    for r in range(2):
        p = cpu_rank(d, r, 2)
        p.host_facts(0.01)
        p.rendezvous(1.0)
        if r == 0:
            p.line(3.0, "fork", child=4100, cuda_initialized=False)
            h = Proc("n1", 4100, rank=0, ws=2, local=0, launcher="env", ppid=4000, t=3.0,
                     cmd=("/usr/bin/which", "hipcc"), exe="/usr/bin/which")
            h.exit(3.1, status=1)
            h.write(d)
        p.stalls(4.0, 60.0, "rendezvous", GLOO_WAIT, GLOO_BARRIER_PY)
        p.write(d)


@case
def completed_slow(d):
    """A CPU job (no steady phase) whose rank 1 stalled once in a barrier,
    then went on; every rank ended with status 0: completed, no error."""
    for r in range(2):
        p = cpu_rank(d, r, 2)
        p.host_facts(0.01)
        p.rendezvous(1.0)
        if r == 1:
            p.stalls(2.0, 60.0, "rendezvous", GLOO_WAIT, GLOO_BARRIER_PY, count=1)
        p.exit(90.0, status=0)
        p.write(d)


@case
def failures_in_order(d):
    """Rank 1's DataLoader worker is killed (SIGKILL) and rank 1 exits 1;
    12 s later rank 3, whose peer is gone, exits 1 too; ranks 0 and 2 wait.
    The first failure leads; the later one follows from it."""
    for p in job_ranks(d, 4):
        startup(p)
        if p.rank == 0:
            p.nccl_id(3.0)
        p.nccl_init(3.5, p.rank, 4)
        p.first_collective(6.0)
        if p.rank == 1:
            p.line(6.5, "fork", child=4101, cuda_initialized=True)
            w = Proc("n1", 4101, rank=1, ws=4, local=1, ppid=4001, t=6.5, relevant="fork",
                     fork_parent=4001, cuda_inherited=True)
            w.exit(20.0, signal="SIGKILL", after_dump=False)
            w.write(d)
            p.exit(21.0, status=1)
        elif p.rank == 3:
            p.exit(33.0, status=1)
        else:
            p.stalls(6.0, 60.0, "first_collective", SYNC, NCCL_PY)
        p.write(d)


# ---- DataLoader workers and build locks (issue 14) ---------------------------------
# Frames recorded on this project's machine: PyTorch 1.13 (Debian), CPython
# 3.11; the worker's Python frames by faulthandler inside a real worker, its
# native ones by gdb (return addresses less one, as the dump writes them),
# the rest by the library's own dumps (tests/dataloader).

TORCH = "/usr/lib/python3/dist-packages/torch"
MP = "/usr/lib/python3.11/multiprocessing"
MAIN_NATIVE_TAIL = ["PyEval_EvalCode (python3.11+0x5236ba)", "?? (python3.11+0x647d96)",
                    "?? (python3.11+0x6456ee)", "?? (python3.11+0x65176f)",
                    "_PyRun_SimpleFileObject (python3.11+0x6514ba)",
                    "_PyRun_AnyFileObject (python3.11+0x6512e3)", "Py_RunMain (python3.11+0x65007e)",
                    "Py_BytesMain (python3.11+0x627d36)", "?? (libc.so.6+0x27249)",
                    "__libc_start_main (libc.so.6+0x27304)", "_start (python3.11+0x627bd0)"]
DL_WAIT = ["poll (libc.so.6+0xfc26f)", "?? (python3.11+0x60a171)", "?? (python3.11+0x569a6a)",
           "PyObject_Vectorcall (python3.11+0x53acbb)",
           "_PyEval_EvalFrameDefault (python3.11+0x52b9df)", "?? (python3.11+0x5c3637)",
           "?? (python3.11+0x5f701c)", "_PyEval_EvalFrameDefault (python3.11+0x52b7d1)"] + \
    MAIN_NATIVE_TAIL
QUEUE_GET_PY = ["select (/usr/lib/python3.11/selectors.py:415)",
                "wait (%s/connection.py:930)" % MP, "_poll (%s/connection.py:423)" % MP,
                "poll (%s/connection.py:256)" % MP, "get (%s/queues.py:113)" % MP]
DL_WAIT_PY = QUEUE_GET_PY + [
    "_try_get_data (%s/utils/data/dataloader.py:1120)" % TORCH,
    "_get_data (%s/utils/data/dataloader.py:1282)" % TORCH,
    "_next_data (%s/utils/data/dataloader.py:1316)" % TORCH,
    "__next__ (%s/utils/data/dataloader.py:628)" % TORCH,
    "first_batch (/work/train.py:66)", "main (/work/train.py:99)", "<module> (/work/train.py:105)"]
GLOO_BARRIER = ["?? (libc.so.6+0x85f14)", "pthread_cond_wait (libc.so.6+0x885d7)",
                "_ZN4c10d4Work4waitENSt6chrono8durationIlSt5ratioILl1ELl1000EEEE "
                "(libtorch_cpu.so.1.13.0+0x44c2842)",
                "?? (libtorch_python.so.1.13.0+0x9a9b4d)", "?? (libtorch_python.so.1.13.0+0x309a30)",
                "?? (python3.11+0x547b95)", "_PyObject_MakeTpCall (python3.11+0x517fc2)",
                "_PyEval_EvalFrameDefault (python3.11+0x52b9df)"] + MAIN_NATIVE_TAIL
GLOO_BARRIER_PY = ["barrier (%s/distributed/distributed_c10d.py:3152)" % TORCH,
                   "main (/work/train.py:100)", "<module> (/work/train.py:105)"]
WORKER_TAIL_PY = [
    "_worker_loop (%s/utils/data/_utils/worker.py:%%d)" % TORCH,
    "run (%s/process.py:108)" % MP, "_bootstrap (%s/process.py:314)" % MP,
    "_launch (%s/popen_fork.py:71)" % MP, "__init__ (%s/popen_fork.py:19)" % MP,
    "_Popen (%s/context.py:281)" % MP, "_Popen (%s/context.py:224)" % MP,
    "start (%s/process.py:121)" % MP, "__init__ (%s/utils/data/dataloader.py:1034)" % TORCH,
    "_get_iterator (%s/utils/data/dataloader.py:381)" % TORCH,
    "__iter__ (%s/utils/data/dataloader.py:435)" % TORCH,
    "first_batch (/work/train.py:65)", "main (/work/train.py:99)", "<module> (/work/train.py:105)"]
WORKER_LOCK_PY = ["__getitem__ (/work/train.py:44)",
                  "<listcomp> (%s/utils/data/_utils/fetch.py:58)" % TORCH,
                  "fetch (%s/utils/data/_utils/fetch.py:58)" % TORCH] + \
    [WORKER_TAIL_PY[0] % 302] + WORKER_TAIL_PY[1:]
WORKER_LOCK = ["?? (libc.so.6+0x85f14)", "?? (libc.so.6+0x90d8f)",
               "PyThread_acquire_lock_timed (python3.11+0x4f905e)", "?? (python3.11+0x5899ae)",
               "?? (python3.11+0x547b95)", "_PyObject_MakeTpCall (python3.11+0x517fc2)",
               "_PyEval_EvalFrameDefault (python3.11+0x5345ae)", "?? (python3.11+0x5c3637)",
               "?? (python3.11+0x5c342e)", "_PyEval_EvalFrameDefault (python3.11+0x52c440)",
               "_PyFunction_Vectorcall (python3.11+0x55c9d0)",
               "_PyEval_EvalFrameDefault (python3.11+0x52f9c0)",
               "_PyObject_FastCallDictTstate (python3.11+0x51f126)", "?? (python3.11+0x565996)",
               "_PyObject_MakeTpCall (python3.11+0x517f64)",
               "_PyEval_EvalFrameDefault (python3.11+0x52b9df)",
               "_PyFunction_Vectorcall (python3.11+0x55c9d0)",
               "PyObject_CallOneArg (python3.11+0x562751)", "?? (python3.11+0x5dcaf5)",
               "PyObject_GetIter (python3.11+0x5140c2)",
               "_PyEval_EvalFrameDefault (python3.11+0x52d752)"] + MAIN_NATIVE_TAIL
WORKER_IDLE_PY = QUEUE_GET_PY + [WORKER_TAIL_PY[0] % 269] + WORKER_TAIL_PY[1:]
FILE_BATON_PY = ["wait (%s/utils/file_baton.py:42)" % TORCH,
                 "_jit_compile (%s/utils/cpp_extension.py:1522)" % TORCH,
                 "load (%s/utils/cpp_extension.py:1284)" % TORCH,
                 "load_extension (/work/train.py:78)", "main (/work/train.py:89)",
                 "<module> (/work/train.py:105)"]
SLEEP = ["clock_nanosleep (libc.so.6+0xcf545)", "?? (python3.11+0x5d64b3)",
         "?? (python3.11+0x545962)", "PyObject_Vectorcall (python3.11+0x53acbb)",
         "_PyEval_EvalFrameDefault (python3.11+0x52b9df)"] + MAIN_NATIVE_TAIL


def dl_job(d, worker, idle=True, t_fork=5.0, sigbus=False, shm=16 << 30):
    """Rank 0 waits in a gloo barrier; rank 1 forked two DataLoader workers
    at t_fork and waits for its first batch. worker(p, t0) writes worker
    4101's life; 4102 is idle (or, sigbus: dies of SIGBUS, rank 1 fails)."""
    for p in job_ranks(d, 2, launcher="env", timeout=60.0, pid0=4000):
        p.host_facts(0.01, shm=shm)
        p.rendezvous(1.0, dest="127.0.0.1:29500")
        if p.rank == 0:
            p.stalls(1.0, 60.0, "rendezvous", GLOO_BARRIER, GLOO_BARRIER_PY)
        else:
            p.line(t_fork, "fork", child=4101, cuda_initialized=False)
            p.line(t_fork + 0.01, "fork", child=4102, cuda_initialized=False)
            kids = []
            for k, pid in enumerate((4101, 4102)):
                kids.append(Proc("n1", pid, rank=1, ws=2, local=1, launcher="env", ppid=4001,
                                 t=t_fork + 0.01 * k, relevant="fork", fork_parent=4001))
            worker(kids[0], 1.0)
            if sigbus:
                kids[1].line(t_fork + 2.0, "signal", signal="SIGBUS", chained="handler")
                kids[1].exit(t_fork + 2.0, signal="SIGBUS", after_dump=False)
                p.exit(t_fork + 4.5, status=1)
            else:
                kids[1].stalls(1.0, 60.0, "launch", DL_WAIT, WORKER_IDLE_PY)
                p.stalls(1.0, 60.0, "rendezvous", DL_WAIT, DL_WAIT_PY)
            for k in kids:
                k.write(d)
        p.write(d)


@case
def three_ranks_two_gpus(d):
    """Three local ranks with CUDA_VISIBLE_DEVICES=0,1 on a host of two
    GPUs: rank 2's set_device(2) fails. One valid list for all: too many
    local ranks, not inconsistent devices."""
    for p in job_ranks(d, 3, env={"CUDA_VISIBLE_DEVICES": "0,1"}):
        p.host_facts(0.01)
        p.rendezvous(1.0)
        if p.rank < 2:
            p.cuda(2.0, ordinal=p.rank, count=2, visible="0,1")
            p.call(3.0, "ncclCommInitRank")
            p.nccl_init(3.0, p.rank, 3, end=False)
            p.stalls(3.0, 60.0, "nccl_init", NCCL_WAIT, NCCL_PY, calls=("ncclCommInitRank",))
        else:
            p.cuda(2.0, count=2, visible="0,1")
            p.cuda_error(2.6, "cuCtxSetCurrent", 101, "CUDA_ERROR_INVALID_DEVICE", ordinal=2)
            p.exit(3.0, status=1)
        p.write(d)


@case
def jax_wrong_port(d):
    """JAX on CPU, the coordinator address given as an argument (role
    other): process 1 was given port 1235 and is refused there; process 0
    serves 10.0.0.1:1234, processes 0 and 2 wait in initialize."""
    for r in range(3):
        p = cpu_rank(d, r, 3, env={"JAX_PLATFORMS": "cpu"},
                     cmd=("/usr/bin/python3", "job.py"))
        p.host_facts(0.01)
        if r == 0:
            p.line(0.5, "listen", addr="[::]:1234", role="other")
        dest = "10.0.0.1:%d" % (1235 if r == 1 else 1234)
        if r == 1:
            for k in (1, 2, 4, 8, 16, 32):
                p.line(0.5 + k, "connect", dest=dest, role="other", result="refused", errno=111,
                       error="ECONNREFUSED", count=k, first=p.mono0 + 0.5,
                       last=p.mono0 + 0.5 + k, dur=0.001)
        else:
            p.line(0.6, "connect", dest=dest, role="other", result="ok", errno=0, error=None,
                   count=1, first=p.mono0 + 0.6, last=p.mono0 + 0.6, dur=0.001)
        p.stalls(0.5, 60.0, "launch", GRPC_WAIT, JAX_PY)
        p.write(d)


@case
def undeclared_working(d):
    """A gloo job that trains (no phase after its rendezvous), dumped past
    the deadline but declared stalled by none of its ranks (the stall lines
    say "declared": false, SPEC section 6): no stall, no error."""
    for r in range(2):
        p = cpu_rank(d, r, 2)
        p.host_facts(0.01)
        p.rendezvous(1.0)
        for i, k in enumerate((1, 2, 4)):
            p.dump(2.0 + 60.0 * k, "timeout", "rendezvous", i + 1, GLOO_WAIT,
                   ["step (/work/train.py:%d)" % (40 + i), "main (/work/train.py:52)"],
                   cpu=60.0 * k, io=(1 << 30) * k, declared=False)
        p.write(d)


@case
def dataloader_stalled(d):
    """Rank 1 waits for its first batch: worker 4101 is stuck in __getitem__
    on a threading.Lock that a thread of the main process held at fork
    (the same stack in three dumps), worker 4102 idles in index_queue.get;
    rank 0 waits in a barrier."""
    dl_job(d, lambda w, t0: w.stalls(t0, 60.0, "launch", WORKER_LOCK, WORKER_LOCK_PY,
                                     name="pt_data_worker"))


@case
def dataloader_working(d):
    """Rank 1 waits for its first batch while worker 4101 works: its stack
    differs in each dump (a slow __getitem__, not a stuck one)."""
    def worker(w, t0):
        for i, k in enumerate((1, 2, 4)):
            py = ["decode (/work/data.py:%d)" % (80 + 7 * i), "__getitem__ (/work/data.py:41)",
                  "fetch (%s/utils/data/_utils/fetch.py:58)" % TORCH] + \
                [WORKER_TAIL_PY[0] % 302] + WORKER_TAIL_PY[1:]
            w.dump(t0 + 60.0 * k, "timeout", "launch", i + 1, WORKER_LOCK[4:], py,
                   cpu=5.0 + 60.0 * k, state="R")
    dl_job(d, worker)


@case
def dataloader_sigbus(d):
    """Worker 4102 of rank 1 dies of SIGBUS (a 64 MiB /dev/shm); rank 1
    raises 2.5 s later and exits 1; rank 0 waits in a barrier."""
    dl_job(d, lambda w, t0: w.exit(7.0, status=0), sigbus=True, shm=64 << 20)


def lock_job(d, builders):
    """Rank 1 waits in FileBaton.wait; its dumps' build_lock lines."""
    for p in job_ranks(d, 2, launcher="env", timeout=60.0, pid0=4000):
        p.host_facts(0.01)
        p.rendezvous(1.0, dest="127.0.0.1:29500")
        if p.rank == 0:
            p.stalls(1.0, 60.0, "rendezvous", GLOO_BARRIER, GLOO_BARRIER_PY)
        else:
            # The helpers extension loading runs: `which hipcc | xargs readlink -f`.
            for k, (pid, cmd, st) in enumerate(((4201, ("/bin/sh", "-c", "which hipcc | xargs readlink -f"), 123),
                                                (4202, ("xargs", "readlink", "-f"), 1))):
                h = Proc("n1", pid, rank=1, ws=2, local=1, launcher="env",
                         ppid=4001 if k == 0 else 4201, t=4.0, cmd=cmd, exe="/usr/bin/" + cmd[0].split("/")[-1])
                h.exit(4.01, status=st)
                h.write(d)
            p.stalls(1.0, 60.0, "rendezvous", SLEEP, FILE_BATON_PY)
            for i, k in enumerate((1, 2, 4)):
                p.line(1.0 + 60.0 * k + 0.0035, "build_lock", tid=4011,
                       root="/scratch/ext", via="TORCH_EXTENSIONS_DIR",
                       locks=[{"path": "/scratch/ext/fused_adam/lock", "age": 10800.0 + 60.0 * k}],
                       builders=builders)
        p.write(d)


@case
def build_lock_stale(d):
    """Rank 1 waits on /scratch/ext/fused_adam/lock, 3 hours old, and no
    build runs on the host; its extension loading ran helpers that exited
    non-zero (which hipcc). Rank 0 waits in a barrier."""
    lock_job(d, [])


@case
def build_lock_live(d):
    """Rank 1 waits on a build lock while ninja (pid 4300, below rank 0)
    builds: slow, not stuck."""
    lock_job(d, [{"pid": 4300, "comm": "ninja", "ppid": 4000, "age": 35.5}])


@case
def activity_nfs(d):
    """Rank 1 reads its data from NFS: its main thread is in D state (no
    answer to the dump signal; /proc says wchan rpc_wait_bit_killable),
    in launch; ranks 0, 2, 3 wait for it in the store."""
    for p in job_ranks(d, 4):
        p.host_facts(0.01)
        if p.rank == 1:
            p.stalls(0.5, 60.0, "launch", [], ["read_shards (/work/data.py:31)",
                                              "main (/work/train.py:20)",
                                              "<module> (/work/train.py:52)"],
                     state="D", wchan="rpc_wait_bit_killable")
        else:
            p.phase(1.0, "rendezvous", "begin", dest="10.0.0.1:29500", role="rendezvous")
            if p.rank == 0:
                p.line(1.001, "listen", addr="0.0.0.0:29500", role="rendezvous", accepted=2)
            p.stalls(1.0, 60.0, "rendezvous", STORE_WAIT, STORE_PY)
        p.write(d)


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        # (an option is no OUTDIR: the folder given is emptied first)
        sys.stdout.write(__doc__ + "\n")
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "report")
    if os.path.isdir(root):
        shutil.rmtree(root)
    for name, fn in CASES.items():
        d = os.path.join(root, name)
        os.makedirs(d)
        fn(d)
        with open(os.path.join(d, "README"), "w") as f:
            f.write(fn.__doc__.strip() + "\n")


if __name__ == "__main__":
    main()
