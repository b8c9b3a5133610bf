#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""gen_traces.py OUTDIR [--ranks N] [--per-host K] [--threads T] [--stuck R]
[--vary [--seed S]] [--world-size W]: synthesises the trace folder of a large stalled job,
the input of the report's scale benchmark (bench/report_scale.sh). Every
host runs a torchrun agent (an srun task, Slurm identity) and K workers
(torchrun identity); every worker starts up (host facts, rendezvous, CUDA,
its GPU) and then waits in ncclCommInitRank, dumping three times (1x, 2x,
4x the deadline) with T threads each, main thread in Python and native
frames; rank R instead never leaves launch: it loads a checkpoint, CPU and
I/O advancing. Lines follow doc/trace-format.md as the library writes them.
Defaults: 16384 ranks, 8 per host, 12 threads, rank 7777 stuck.
--scenario distinct: every rank waits at another Python line (as many
stack groups as ranks); exited: every waiting rank then exits with status
1 (the report's worst cases, not the benchmark's).
Without --vary every host and rank repeats the same timings, CPU times,
I/O counters, durations, pids and tids (the repeated set). --vary makes
the ranks differ as on a real cluster, seeded (--seed, default 24; one
seed, the same bytes: only random() and getrandbits() are drawn, whose
streams Python keeps from version to version). Hosts start a few seconds
apart (the workers of one host within a second) and have their own
uptime, boot id, wall-clock offset of a millisecond or two, address and
/dev/shm free space; pids and tids are scattered as a busy host hands
them out; every rank has its own phase durations (import, cuda_init,
device, rendezvous, nccl_id), dump times, ages and durations, CPU times
per thread and I/O counters (rchar, wchar, syscr, syscw, read_bytes,
write_bytes), and its GPU its own UUID. The job's image stays one: GPU
model, driver, CUDA, NCCL and Python versions, frames, the NCCL id and
the fields of every line are those of the repeated set (rank 0's nccl_id
end also carries bootstrap_root and dur). Waiting ranks stay blocked by
the report's measure (CPU and I/O barely move between dumps) and the
stuck rank works (about a core, 110-165 MiB/s read), so the verdict is
the same: straggler.
--world-size W (default: --ranks): the traces are those of the first
hosts of a job of W ranks (its world size, communicator size and srun
task count say W), which bench/dg_replicate.c completes by replicating
them with other host names, ranks, pids and times (bench/digest_million.sh)."""
import argparse
import math
import os
import random

TS0 = 1700000000.0
DEADLINE = 300.0

NATIVE_WAIT = ["poll (libc.so.6+0xf8a3f)", "ncclSocketPoll (libnccl.so.2+0x8d2a1)",
               "bootstrapRecv (libnccl.so.2+0x5e1c0)", "bootstrapInit (libnccl.so.2+0x60f11)",
               "ncclCommInitRankFunc (libnccl.so.2+0x7a4c2)",
               "ncclCommInitRankDev (libnccl.so.2+0x7c0a8)",
               "ncclCommInitRank (libnccl.so.2+0x7c5d3)",
               "_ZN4c10d8NCCLComm6createEiiP12ncclUniqueIdai (libtorch_cuda.so+0x11e5c80)",
               "_ZN4c10d16ProcessGroupNCCL11getNCCLCommEv (libtorch_cuda.so+0x11f0a1c)",
               "_ZN4c10d16ProcessGroupNCCL7barrierERKNS_14BarrierOptionsE (libtorch_cuda.so+0x1201b33)",
               "?? (libtorch_python.so+0x8d3e41)", "cfunction_call (python3.11+0x54b0e4)",
               "_PyObject_MakeTpCall (python3.11+0x53a8f1)",
               "_PyEval_EvalFrameDefault (python3.11+0x52b9df)",
               "_PyFunction_Vectorcall (python3.11+0x5440a7)",
               "_PyEval_EvalFrameDefault (python3.11+0x52d2a1)",
               "PyEval_EvalCode (python3.11+0x5236ba)", "?? (python3.11+0x647d96)",
               "_PyRun_SimpleFileObject (python3.11+0x6514ba)",
               "Py_RunMain (python3.11+0x65007e)", "Py_BytesMain (python3.11+0x627d36)",
               "__libc_start_main (libc.so.6+0x27304)", "_start (python3.11+0x627bd0)"]
PY_WAIT = ["barrier (/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py:4150)",
           "wrapper (/usr/lib/python3/dist-packages/torch/distributed/c10d_logger.py:81)",
           "setup (/work/train.py:44)", "main (/work/train.py:90)", "<module> (/work/train.py:120)"]
NATIVE_LOAD = ["read (libc.so.6+0x10a1b2)", "_Py_read (python3.11+0x6127c1)",
               "_io_FileIO_readinto (python3.11+0x6a0c33)",
               "_PyEval_EvalFrameDefault (python3.11+0x52b9df)",
               "PyEval_EvalCode (python3.11+0x5236ba)", "Py_RunMain (python3.11+0x65007e)",
               "__libc_start_main (libc.so.6+0x27304)", "_start (python3.11+0x627bd0)"]
PY_LOAD = ["load (/usr/lib/python3/dist-packages/torch/serialization.py:1025)",
           "load_checkpoint (/work/train.py:31)", "main (/work/train.py:85)",
           "<module> (/work/train.py:120)"]
OTHER = [["futex_wait (libc.so.6+0x8b1f3)", "pthread_cond_wait (libc.so.6+0x8e1a0)",
          "_ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE (libstdc++.so.6+0xd7930)",
          "_ZN3c1010ThreadPool9main_loopEm (libc10.so+0x6a1b2)",
          "?? (libstdc++.so.6+0xe52a3)", "start_thread (libc.so.6+0x8a134)",
          "clone3 (libc.so.6+0x10a8c0)"],
         ["poll (libc.so.6+0xf8a3f)", "ncclProxyService (libnccl.so.2+0x9a2f1)",
          "start_thread (libc.so.6+0x8a134)", "clone3 (libc.so.6+0x10a8c0)"],
         ["ioctl (libc.so.6+0xfa27b)", "?? (libcuda.so.1+0x2c81f0)", "?? (libcuda.so.1+0x3b0a21)",
          "?? (libcuda.so.1+0x3b11c4)", "start_thread (libc.so.6+0x8a134)",
          "clone3 (libc.so.6+0x10a8c0)"]]


def f6(x):
    return "%.6f" % x


def header(host, pid, ppid, rank, ws, local, launcher, boot, mono0, t, cmd, env, relevant,
           ts0, btime):
    envs = ",".join('"%s":"%s"' % kv for kv in env.items())
    return ('{"t":"header","ts":%s,"mono":%s,"format":"hangtrace/1","version":"0.1.0",'
            '"host":"%s","pid":%d,"ppid":%d,"rank":%d,"world_size":%d,"local_rank":%d,'
            '"launcher":"%s","job":"4242","relevant":"%s","dump_signal":63,"boot_id":"%s",'
            '"btime":%s,"start_ticks":%d,"fork_parent":null,"cuda_inherited":false,'
            '"timeout":%s,"on_stall":"dump","warnings":[],"exe":"/usr/bin/python3.11",'
            '"cwd":"/work","cmdline":[%s],"env":{%s}}\n'
            % (f6(ts0 + t), f6(mono0 + t), host, pid, ppid, rank, ws, local, launcher,
               relevant, boot, f6(btime), int((mono0 + t) * 100), f6(DEADLINE),
               ",".join('"%s"' % a for a in cmd), envs))


class W:
    """Writes one process's lines; times relative to the job's start (ts0 is
    the wall clock of that start on the host's clock)."""

    def __init__(self, pid, mono0, ts0=TS0):
        self.pid, self.mono0, self.ts0, self.out = pid, mono0, ts0, []

    def ev(self, t, kind, body, tid=None):
        self.out.append('{"t":"%s","ts":%s,"mono":%s,"tid":%d,%s}\n'
                        % (kind, f6(self.ts0 + t), f6(self.mono0 + t),
                           self.pid if tid is None else tid, body))

    def thread(self, t, body):
        self.out.append('{"t":"thread","ts":%s,"mono":%s,%s}\n'
                        % (f6(self.ts0 + t), f6(self.mono0 + t), body))


def frames(fs):
    return ",".join('"%s"' % f for f in fs)


OURS = ["ht__unwind_here (libhangtrace.so+0x9a1c)", "ht__on_dump_signal (libhangtrace.so+0x8f00)",
        "__restore_rt (libc.so.6+0x3c050)"]


class Look:
    """One timeout dump's numbers: when (t, its thread lines', its end), the
    stall line's ages, the threads' CPU seconds, the dump's duration and
    /proc/self/io (rchar, wchar, syscr, syscw, read_bytes, write_bytes)."""
    __slots__ = ("t", "phase_age", "age", "call_age", "t_main", "t_wd", "t_other", "t_end",
                 "dur", "cpu_main", "cpu_wd", "cpu_other", "io")


def dumps(w, phase, main_native, main_py, nthreads, call, looks, wd, tids):
    for i, lk in enumerate(looks):
        d = i + 1
        calls = ('[{"name":"%s","tid":%d,"age":%s}]' % (call, w.pid, f6(lk.call_age))
                 if call else "[]")
        w.ev(lk.t, "stall", '"dump":%d,"reason":"timeout","phase":"%s","phase_age":%s,"n":%d,'
             '"deadline":%s,"age":%s,"calls":%s' % (d, phase, f6(lk.phase_age), d, f6(DEADLINE),
                                                    f6(lk.age), calls), tid=wd)
        w.thread(lk.t_main, '"dump":%d,"tid":%d,"name":"python3","main":true,"state":"S",'
                 '"cpu":%s,"answered":true,"frames":[%s],"python":[%s]'
                 % (d, w.pid, f6(lk.cpu_main), frames(OURS + main_native), frames(main_py)))
        w.thread(lk.t_wd, '"dump":%d,"tid":%d,"name":"hangtrace","main":false,"state":"R",'
                 '"cpu":%s,"answered":false,"hangtrace":true' % (d, wd, f6(lk.cpu_wd)))
        for k2 in range(nthreads - 2):
            o = OTHER[k2 % len(OTHER)]
            w.thread(lk.t_other[k2], '"dump":%d,"tid":%d,"name":"pt_thread_%d","main":false,'
                     '"state":"S","cpu":%s,"answered":true,"frames":[%s]'
                     % (d, tids[k2], k2, f6(lk.cpu_other[k2]), frames(OURS + o)))
        w.ev(lk.t_end, "dump_end", '"dump":%d,"dur":%s,"threads":%d,"unanswered":0,'
             '"unwinder":"libunwind","python":"ok","io":{"rchar":%d,"wchar":%d,"syscr":%d,'
             '"syscw":%d,"read_bytes":%d,"write_bytes":%d},"collectives":[],'
             '"collectives_total":0' % ((d, f6(lk.dur), nthreads) + tuple(lk.io)), tid=wd)


def host_line(w, t, host, addr, shm_free):
    w.ev(t, "host", '"hostname":"%s","ifaces":[{"name":"lo","up":true,"addrs":["127.0.0.1/8"]},'
         '{"name":"ens5","up":true,"addrs":["%s/16"]}],"nccl_socket_ifname":"ens5",'
         '"gloo_socket_ifname":null,"nccl_ifname_match":["ens5"],"gloo_ifname_match":[],'
         '"shm_total":%d,"shm_free":%d,"memlock_soft":null,"memlock_hard":null,'
         '"nofile_soft":1048576,"nofile_hard":1048576,"cpus":96'
         % (host, addr, SHM_TOTAL, shm_free))


SHM_TOTAL = 68719476736


class Host:
    """A host's facts and its torchrun agent's timeline."""


class Rank:
    """A worker's timeline (seconds from the job's start), pid and tids."""


class Same:
    """The repeated set: every host and rank has the same timings, CPU
    times, I/O counters, durations, pids and tids (bench/gen_traces.py
    before --vary, byte for byte)."""

    def __init__(self, a):
        self.a = a

    def host(self, h):
        v = Host()
        v.boot = "b00t%04x-0000-4000-8000-%012x" % (h % 65536, h)
        v.mono0 = 1000.0 + h * 0.37
        v.ts0 = TS0
        v.addr = "10.%d.%d.%d" % (h // 65536, (h // 256) % 256, h % 256)
        v.apid, v.appid = 10000, 9999
        v.a_hdr, v.a_launch, v.a_rdzv = 0.0, 0.0, 0.5
        v.a_conn, v.a_cfirst, v.a_cdur, v.a_end, v.a_rdur = 0.6, 0.6, 0.001, 0.7, 0.2
        v.pids = [20000 + lr * 100 for lr in range(self.a.per_host)]
        v.tids = [(pid + 1, [pid + 2 + k2 for k2 in range(self.a.threads - 2)])
                  for pid in v.pids]
        return v

    def btime(self, v):
        return TS0 - v.mono0

    def gpu_uuid(self, v, h, lr):
        return "GPU-%08x-0000-4000-8000-%012x" % (h, lr)

    def rank(self, v, lr, r, stuck):
        x = Rank()
        x.hdr, x.launch, x.host = 1.0, 1.0, 1.01
        x.shm_free = 68700000000
        t = 2.0
        x.cuda_b, x.cuda_e, x.dev_b, x.dev_e = t, t + 0.4, t + 0.5, t + 0.9
        x.rdzv_b, x.conn, x.cfirst, x.cdur, x.rdzv_e, x.rdur = 3.0, 3.01, 3.0, 0.001, 3.02, 0.02
        x.id_b, x.id_e, x.id_dur = 4.0, 4.01, None
        x.ver = x.nccl_b = x.phase_b = x.call_b = 4.5
        x.exit = 1300.0
        return x

    def looks(self, x, t0, nthreads, stuck):
        if stuck:
            cpus, ios = (280.0, 570.0, 1150.0), (40 << 30, 80 << 30, 160 << 30)
        else:
            cpus, ios = (3.2, 3.21, 3.22), (5 << 20, 5 << 20, 5 << 20)
        out = []
        for i, k in enumerate((1, 2, 4)):
            lk = Look()
            t = t0 + k * DEADLINE
            lk.t, lk.phase_age = t, k * DEADLINE
            lk.age = lk.call_age = k * DEADLINE
            lk.t_main, lk.t_wd = t + 0.001, t + 0.002
            lk.t_other = [t + 0.003] * (nthreads - 2)
            lk.t_end, lk.dur = t + 0.004, 0.004
            lk.cpu_main, lk.cpu_wd, lk.cpu_other = cpus[i], 0.0, [0.01] * (nthreads - 2)
            lk.io = (ios[i], 4096, 120, 30, ios[i], 0)
            out.append(lk)
        return out


class Rng:
    """random.random and getrandbits only: the same numbers on every Python 3."""

    def __init__(self, seed):
        self.r = random.Random(seed)

    def u(self, a, b):
        return a + (b - a) * self.r.random()

    def i(self, a, b):
        return a + int(self.r.random() * (b - a + 1))

    def bits(self, n):
        return self.r.getrandbits(n)

    def ln(self, med, sigma, lo, hi):
        """Log-normal around med (Box-Muller), kept within [lo, hi]."""
        z = math.sqrt(-2.0 * math.log(1.0 - self.r.random())) * math.cos(2 * math.pi *
                                                                         self.r.random())
        return min(hi, max(lo, med * math.exp(sigma * z)))

    def shuffle(self, xs):
        for k in range(len(xs) - 1, 0, -1):
            j = int(self.r.random() * (k + 1))
            xs[k], xs[j] = xs[j], xs[k]


def us(x):
    """A duration as the library measures it: whole microseconds."""
    return round(x, 6)


class Vary(Same):
    """Ranks that differ as on a real cluster (see the module's docstring).
    Hosts are made in order, each from its own generator, so a host's
    numbers depend on the seed and its index only (and the address
    cursor, which walks the hosts in order)."""

    def __init__(self, a):
        Same.__init__(self, a)
        self.seed = a.seed
        self.addr = (10 << 24) + 1      # host 0 holds MASTER_ADDR (10.0.0.1)
        self.t_id = None                # when rank 0 had the NCCL id

    def host(self, h):
        g = self.g = Rng(self.seed * 1000003 + h)
        v = Host()
        v.boot = "%08x-%04x-4%03x-%04x-%012x" % (g.bits(32), g.bits(16), g.bits(12),
                                                 0x8000 | g.bits(14), g.bits(48))
        v.mono0 = g.u(2 * 3600.0, 60 * 86400.0)     # uptime at the job's start
        v.ts0 = TS0 + g.u(-0.002, 0.002)             # the host's clock, NTP-close
        a = self.addr
        v.addr = "%d.%d.%d.%d" % (a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255)
        a += g.i(1, 3)
        while a & 255 in (0, 255):
            a += 1
        self.addr = a
        skew = g.u(0.0, 4.0)                         # srun's tasks and their Python start
        v.apid = g.i(2000, 3500000)
        v.appid = v.apid - g.i(1, 40)                # slurmstepd
        v.a_hdr = skew
        v.a_launch = skew + g.u(0.0001, 0.001)
        v.a_rdzv = v.a_launch + g.ln(0.8, 0.35, 0.3, 3.0)
        v.a_cfirst = v.a_rdzv + g.u(0.00001, 0.0002)
        v.a_cdur = us(g.u(0.0002, 0.004))
        v.a_conn = v.a_cfirst + v.a_cdur
        v.a_end = v.a_conn + g.u(0.00002, 0.0003)
        v.a_rdur = us(v.a_end - v.a_rdzv)
        # The agent forks its workers one after another; other processes
        # and the workers' threads take pids in between.
        p = v.apid + g.i(6, 90)
        v.pids = []
        for lr in range(self.a.per_host):
            v.pids.append(p)
            p += g.i(1, 9)
        nt = self.a.threads - 2
        wd = []
        for lr in range(self.a.per_host):
            p += g.i(1, 3)
            wd.append(p)
        slots = [lr for lr in range(self.a.per_host) for _ in range(nt)]
        g.shuffle(slots)
        other = [[] for _ in range(self.a.per_host)]
        for lr in slots:
            p += g.i(1, 4)
            other[lr].append(p)
        v.tids = list(zip(wd, other))
        self.worker0 = skew + g.u(0.15, 0.5)         # the agent starts its workers
        return v

    def btime(self, v):
        return v.ts0 - v.mono0 + self.g.u(-0.00005, 0.00005)

    def gpu_uuid(self, v, h, lr):
        g = self.g
        return "GPU-%08x-%04x-%04x-%04x-%012x" % (g.bits(32), g.bits(16), g.bits(16),
                                                  g.bits(16), g.bits(48))

    def rank(self, v, lr, r, stuck):
        g = self.g
        x = Rank()
        x.hdr = self.worker0 + g.u(0.0, 0.35)
        x.launch = x.hdr + g.u(0.0001, 0.0015)
        x.host = x.launch + g.u(0.002, 0.03)
        # /dev/shm as this rank found it: the host's leftovers, the ranks before it
        x.shm_free = SHM_TOTAL - 4096 * (g.i(2000, 120000) + lr * g.i(0, 3000))
        x.cuda_b = x.host + g.ln(1.4, 0.35, 0.6, 4.0)           # import torch
        x.cuda_e = x.cuda_b + g.ln(0.45, 0.3, 0.2, 2.0)
        x.dev_b = x.cuda_e + g.u(0.002, 0.15)
        x.dev_e = x.dev_b + g.ln(0.35, 0.35, 0.1, 1.5)
        x.rdzv_b = x.dev_e + g.u(0.05, 0.8)
        x.cfirst = x.rdzv_b + g.u(0.00001, 0.0002)
        x.cdur = us(g.u(0.0002, 0.004))
        x.conn = x.cfirst + x.cdur
        x.rdzv_e = x.conn + g.u(0.00002, 0.0003)
        x.rdur = us(x.rdzv_e - x.rdzv_b)
        ready = x.rdzv_e + g.u(0.05, 0.6)
        x.id_b = ready
        x.id_dur = us(g.u(0.002, 0.03))
        x.id_e = x.id_b + x.id_dur
        if r == 0 and not stuck:
            self.t_id = x.id_e
            x.ver = x.id_e + g.u(0.0005, 0.01)
        elif self.t_id is not None:
            # the id comes through the store once rank 0 has put it there
            x.ver = max(ready, self.t_id + g.u(0.002, 0.25))
        else:
            x.ver = ready
        x.nccl_b = x.ver + g.u(0.000003, 0.00004)
        x.phase_b = x.nccl_b + g.u(0.000002, 0.00002)
        x.call_b = x.phase_b + g.u(0.000001, 0.00001)
        return x

    def looks(self, x, t0, nthreads, stuck):
        g = self.g
        nt = nthreads - 2
        if stuck:
            # torch.load from the start of the script: about a core, 110-165 MiB/s
            ticks = g.i(20, 90)
            rate = g.u(110.0, 165.0) * (1 << 20)
            io = [g.i(150 << 20, 600 << 20), g.i(20000, 400000), g.i(20000, 90000),
                  g.i(500, 4000), 4096 * g.i(0, 40000), 4096 * g.i(0, 200)]
        else:
            ticks = g.i(260, 950)                     # imports, CUDA and NCCL set-up
            io = [g.i(180000000, 1400000000), g.i(20000, 3000000), g.i(30000, 250000),
                  g.i(800, 25000), 0, 4096 * g.i(0, 2500)]
            io[4] = 4096 * int(io[0] * g.u(0.0, 0.9) / 4096)
        wd_ticks = g.i(0, 1)
        other = [g.i(0, 40) if k2 % 3 == 2 else g.i(0, 6) for k2 in range(nt)]
        out, last = [], t0
        for k in (1, 2, 4):
            lk = Look()
            t = t0 + k * DEADLINE + g.u(0.0003, 0.02)  # the watchdog's timer, late
            lk.t = t
            lk.phase_age = us(t - t0)
            lk.age = us(t - (x.call_b if not stuck else t0))
            lk.call_age = round((t - x.call_b) / 0.004) * 0.004   # the coarse clock
            s = t + g.u(0.0004, 0.003)
            lk.t_main = s
            s += g.u(0.00002, 0.0002)
            lk.t_wd = s
            lk.t_other = []
            for k2 in range(nt):
                s += g.u(0.0001, 0.0009)
                lk.t_other.append(s)
            lk.t_end = s + g.u(0.00005, 0.0004)
            lk.dur = us(lk.t_end - t)
            if stuck:
                ticks += int((t - last) * 100 * g.u(0.9, 0.98))
                got = 4096 * int((t - last) * rate * g.u(0.97, 1.03) / 4096)
                io[0] += got
                io[1] += g.i(0, 20000)
                io[2] += got // (g.i(1, 4) << 20) + g.i(50, 400)
                io[3] += g.i(0, 60)
                io[4] += got
                io[5] += 4096 * g.i(0, 8)
            else:
                # a rank waiting in NCCL's bootstrap: a few polls, next to no I/O
                ticks += g.i(0, 2)
                io[0] += g.i(0, 40000)
                io[1] += g.i(0, 4000)
                io[2] += g.i(0, 300)
                io[3] += g.i(0, 40)
                io[4] += 4096 * g.i(0, 8)
                io[5] += 4096 * g.i(0, 4)
                other = [c + (g.i(0, 1) if k2 % 3 else 0) for k2, c in enumerate(other)]
            wd_ticks += g.i(0, 1)
            last = t
            lk.cpu_main, lk.cpu_wd = ticks / 100.0, wd_ticks / 100.0
            lk.cpu_other = [c / 100.0 for c in other]
            lk.io = tuple(io)
            out.append(lk)
        # --scenario exited: the framework's timeout, counted from its own
        # init, ends each rank (as 1300 s from the job's start in the repeated set)
        x.exit = (t0 if stuck else x.call_b) + 1295.5 + g.u(0.05, 1.5)
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=16384)
    ap.add_argument("--per-host", type=int, default=8)
    ap.add_argument("--threads", type=int, default=12)
    ap.add_argument("--stuck", type=int, default=7777)
    ap.add_argument("--scenario", choices=("straggler", "distinct", "exited"),
                    default="straggler")
    ap.add_argument("--vary", action="store_true",
                    help="ranks that differ as real ones do (start skew, CPU, I/O, ages, "
                    "durations, pids, host facts)")
    ap.add_argument("--seed", type=int, default=24, help="the seed of --vary")
    ap.add_argument("--world-size", type=int, default=None,
                    help="the job's world size the traces say (default: --ranks): these "
                    "ranks are the first hosts of a larger job (bench/dg_replicate.c "
                    "makes the rest)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    plan = Vary(a) if a.vary else Same(a)
    hosts = (a.ranks + a.per_host - 1) // a.per_host
    ws = a.ranks if a.world_size is None else a.world_size
    if ws < a.ranks:
        ap.error("--world-size must be at least --ranks")
    job_hosts = (ws + a.per_host - 1) // a.per_host   # the job's srun tasks
    stuck = a.stuck % a.ranks
    root = "10.0.0.1:41234"
    for h in range(hosts):
        host = "gpu%05d" % h
        v = plan.host(h)
        boot, mono0 = v.boot, v.mono0
        # The torchrun agent, an srun task.
        apid = v.apid
        w = W(apid, mono0, v.ts0)
        env = {"SLURM_PROCID": str(h), "SLURM_NTASKS": str(job_hosts), "SLURM_LOCALID": "0",
               "SLURM_JOB_ID": "4242", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"}
        w.out.append(header(host, apid, v.appid, h, job_hosts, 0, "slurm", boot, mono0, v.a_hdr,
                            ["/usr/bin/python3", "-m", "torch.distributed.run",
                             "--nproc-per-node=%d" % a.per_host, "train.py"], env, "identity",
                            v.ts0, plan.btime(v)))
        w.ev(v.a_launch, "phase", '"phase":"launch","state":"begin"')
        w.ev(v.a_rdzv, "phase", '"phase":"rendezvous","state":"begin","dest":"10.0.0.1:29400",'
             '"role":"rendezvous"')
        w.ev(v.a_conn, "connect", '"dest":"10.0.0.1:29400","role":"rendezvous","result":"ok",'
             '"errno":0,"error":null,"count":1,"first":%s,"last":%s,"dur":%s'
             % (f6(mono0 + v.a_cfirst), f6(mono0 + v.a_cfirst), f6(v.a_cdur)))
        w.ev(v.a_end, "phase", '"phase":"rendezvous","state":"end","dest":"10.0.0.1:29400",'
             '"role":"rendezvous","dur":%s' % f6(v.a_rdur))
        with open(os.path.join(a.out, "%s.%d.jsonl" % (host, apid)), "w") as f:
            f.write("".join(w.out))
        for lr in range(a.per_host):
            r = h * a.per_host + lr
            if r >= a.ranks:
                break
            pid = v.pids[lr]
            wd, tids = v.tids[lr]
            x = plan.rank(v, lr, r, r == stuck)
            w = W(pid, mono0, v.ts0)
            env = {"RANK": str(r), "WORLD_SIZE": str(ws), "LOCAL_RANK": str(lr),
                   "LOCAL_WORLD_SIZE": str(a.per_host), "GROUP_RANK": str(h),
                   "TORCHELASTIC_RUN_ID": "4242", "MASTER_ADDR": "10.0.0.1",
                   "MASTER_PORT": "29500", "NCCL_SOCKET_IFNAME": "ens5",
                   "CUDA_HOME": "/usr/local/cuda", "SLURM_JOB_ID": "4242",
                   "SLURM_PROCID": str(h), "SLURM_NTASKS": str(job_hosts)}
            w.out.append(header(host, pid, apid, r, ws, lr, "torchrun", boot, mono0, x.hdr,
                                ["/usr/bin/python3", "-u", "train.py", "--config", "big.yaml"],
                                env, "identity", v.ts0, plan.btime(v)))
            w.ev(x.launch, "phase", '"phase":"launch","state":"begin"')
            host_line(w, x.host, host, v.addr, x.shm_free)
            if r == stuck:
                dumps(w, "launch", NATIVE_LOAD, PY_LOAD, a.threads, None,
                      plan.looks(x, x.launch, a.threads, True), wd, tids)
            else:
                w.ev(x.cuda_b, "phase", '"phase":"cuda_init","state":"begin","fn":"cuInit","via":'
                     '"cuGetProcAddress","caller":"libcudart.so.12","runtime_version":12040')
                w.ev(x.cuda_e, "phase", '"phase":"cuda_init","state":"end","fn":"cuInit","via":'
                     '"cuGetProcAddress","caller":"libcudart.so.12","result":0,"error":null,'
                     '"libcuda":"/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15","stub":false,'
                     '"driver_version":12040,"runtime_version":12040,"lookups":812')
                w.ev(x.cuda_e, "version", '"what":"cuda_driver","value":12040,"provider":'
                     '"/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"')
                w.ev(x.cuda_e, "version", '"what":"cuda_runtime","value":12040,"provider":'
                     '"libcudart.so.12"')
                w.ev(x.dev_b, "phase", '"phase":"device","state":"begin","via":'
                     '"cuDevicePrimaryCtxRetain","ordinal":%d' % lr)
                w.ev(x.dev_e, "phase", '"phase":"device","state":"end","via":'
                     '"cuDevicePrimaryCtxRetain","ordinal":%d,"uuid":"%s",'
                     '"pci_bus_id":"0000:%02x:00.0","device_count":%d,'
                     '"visible_devices":null,"local_rank":%d'
                     % (lr, plan.gpu_uuid(v, h, lr), 0x18 + lr * 8, a.per_host, lr))
                w.ev(x.rdzv_b, "phase", '"phase":"rendezvous","state":"begin","dest":'
                     '"10.0.0.1:29500","role":"rendezvous"')
                w.ev(x.conn, "connect", '"dest":"10.0.0.1:29500","role":"rendezvous","result":'
                     '"ok","errno":0,"error":null,"count":1,"first":%s,"last":%s,'
                     '"dur":%s' % (f6(mono0 + x.cfirst), f6(mono0 + x.cfirst), f6(x.cdur)))
                w.ev(x.rdzv_e, "phase", '"phase":"rendezvous","state":"end","dest":'
                     '"10.0.0.1:29500","role":"rendezvous","dur":%s' % f6(x.rdur))
                ids = ('"root":"%s","id_hash":"0x5be0cd19137e2179","commid":"0x19137e217900",'
                       '"commid_old":null,"fixed_magic":false,"n_ids":1' % root)
                if r == 0:
                    w.ev(x.id_b, "phase", '"phase":"nccl_id","state":"begin"')
                    w.ev(x.id_e, "phase", '"phase":"nccl_id","state":"end","root":"%s",'
                         '"magic":"0x9a1f3c5d7e2b4a60","fixed_magic":false,"id_hash":'
                         '"0x5be0cd19137e2179","commid":"0x19137e217900","commid_old":null%s'
                         % (root, "" if x.id_dur is None else
                            ',"bootstrap_root":true,"dur":%s' % f6(x.id_dur)))
                w.ev(x.ver, "version", '"what":"nccl","value":22105,"provider":'
                     '"/usr/lib/python3/dist-packages/nvidia/nccl/lib/libnccl.so.2"')
                w.ev(x.nccl_b, "nccl", '"fn":"ncclCommInitRank","state":"begin","comm":null,'
                     '"nranks":%d,"rank":%d,"blocking":null,"comm_name":null,"nested":false,'
                     '"nccl_version":22105,%s' % (ws, r, ids))
                w.ev(x.phase_b, "phase", '"phase":"nccl_init","state":"begin",'
                     '"fn":"ncclCommInitRank","nranks":%d,"rank":%d,%s' % (ws, r, ids))
                w.ev(x.call_b, "call", '"name":"ncclCommInitRank","state":"begin","id":1')
                py = PY_WAIT
                if a.scenario == "distinct":
                    py = PY_WAIT[:3] + ["main (/work/train.py:%d)" % (90 + r)] + PY_WAIT[4:]
                dumps(w, "nccl_init", NATIVE_WAIT, py, a.threads, "ncclCommInitRank",
                      plan.looks(x, x.phase_b, a.threads, False), wd, tids)
                if a.scenario == "exited":
                    w.ev(x.exit, "exit", '"status":1')
            with open(os.path.join(a.out, "%s.%d.jsonl" % (host, pid)), "w") as f:
                f.write("".join(w.out))


if __name__ == "__main__":
    main()
