#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""gen_traces.py OUTDIR [--ranks N] [--per-host K] [--threads T] [--stuck R]:
synthesises the trace folder of a large stalled job, the input of the
report's scale benchmark (bench/report_scale.sh). Every host runs a
torchrun agent (an srun task, Slurm identity) and K workers (torchrun
identity); every worker starts up (host facts, rendezvous, CUDA, its GPU)
and then waits in ncclCommInitRank, dumping three times (1x, 2x, 4x the
deadline) with T threads each, main thread in Python and native frames;
rank R instead never leaves launch: it loads a checkpoint, CPU and I/O
advancing. Lines follow doc/trace-format.md as the library writes them.
Defaults: 16384 ranks, 8 per host, 12 threads, rank 7777 stuck.
--scenario distinct: every rank waits at another Python line (as many
stack groups as ranks); exited: every waiting rank then exits with status
1 (the report's worst cases, not the benchmark's)."""
import argparse
import os

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


def header(host, pid, ppid, rank, ws, local, launcher, boot, mono0, t, cmd, env, relevant):
    envs = ",".join('"%s":"%s"' % kv for kv in env.items())
    return ('{"t":"header","ts":%s,"mono":%s,"format":"hangtrace/1","version":"0.1.0",'
            '"host":"%s","pid":%d,"ppid":%d,"rank":%d,"world_size":%d,"local_rank":%d,'
            '"launcher":"%s","job":"4242","relevant":"%s","dump_signal":63,"boot_id":"%s",'
            '"btime":%s,"start_ticks":%d,"fork_parent":null,"cuda_inherited":false,'
            '"timeout":%s,"on_stall":"dump","warnings":[],"exe":"/usr/bin/python3.11",'
            '"cwd":"/work","cmdline":[%s],"env":{%s}}\n'
            % (f6(TS0 + t), f6(mono0 + t), host, pid, ppid, rank, ws, local, launcher,
               relevant, boot, f6(TS0 - mono0), int((mono0 + t) * 100), f6(DEADLINE),
               ",".join('"%s"' % a for a in cmd), envs))


class W:
    """Writes one process's lines; times relative to the job's start."""

    def __init__(self, pid, mono0):
        self.pid, self.mono0, self.out = pid, mono0, []

    def ev(self, t, kind, body, tid=None):
        self.out.append('{"t":"%s","ts":%s,"mono":%s,"tid":%d,%s}\n'
                        % (kind, f6(TS0 + t), f6(self.mono0 + t),
                           self.pid if tid is None else tid, body))

    def thread(self, t, body):
        self.out.append('{"t":"thread","ts":%s,"mono":%s,%s}\n'
                        % (f6(TS0 + t), f6(self.mono0 + t), body))


def frames(fs):
    return ",".join('"%s"' % f for f in fs)


OURS = ["ht__unwind_here (libhangtrace.so+0x9a1c)", "ht__on_dump_signal (libhangtrace.so+0x8f00)",
        "__restore_rt (libc.so.6+0x3c050)"]


def dumps(w, t0, phase, main_native, main_py, nthreads, cpus, ios, call):
    for i, k in enumerate((1, 2, 4)):
        t = t0 + k * DEADLINE
        d = i + 1
        calls = '[{"name":"%s","tid":%d,"age":%s}]' % (call, w.pid, f6(k * DEADLINE)) if call else "[]"
        w.ev(t, "stall", '"dump":%d,"reason":"timeout","phase":"%s","phase_age":%s,"n":%d,'
             '"deadline":%s,"age":%s,"calls":%s' % (d, phase, f6(k * DEADLINE), d, f6(DEADLINE),
                                                    f6(k * DEADLINE), calls), tid=w.pid + 1)
        w.thread(t + 0.001, '"dump":%d,"tid":%d,"name":"python3","main":true,"state":"S",'
                 '"cpu":%s,"answered":true,"frames":[%s],"python":[%s]'
                 % (d, w.pid, f6(cpus[i]), frames(OURS + main_native), frames(main_py)))
        w.thread(t + 0.002, '"dump":%d,"tid":%d,"name":"hangtrace","main":false,"state":"R",'
                 '"cpu":0.000000,"answered":false,"hangtrace":true' % (d, w.pid + 1))
        for k2 in range(nthreads - 2):
            o = OTHER[k2 % len(OTHER)]
            w.thread(t + 0.003, '"dump":%d,"tid":%d,"name":"pt_thread_%d","main":false,'
                     '"state":"S","cpu":0.010000,"answered":true,"frames":[%s]'
                     % (d, w.pid + 2 + k2, k2, frames(OURS + o)))
        w.ev(t + 0.004, "dump_end", '"dump":%d,"dur":0.004000,"threads":%d,"unanswered":0,'
             '"unwinder":"libunwind","python":"ok","io":{"rchar":%d,"wchar":4096,"syscr":120,'
             '"syscw":30,"read_bytes":%d,"write_bytes":0},"collectives":[],'
             '"collectives_total":0' % (d, nthreads, ios[i], ios[i]), tid=w.pid + 1)


def host_line(w, t, host, i):
    w.ev(t, "host", '"hostname":"%s","ifaces":[{"name":"lo","up":true,"addrs":["127.0.0.1/8"]},'
         '{"name":"ens5","up":true,"addrs":["10.%d.%d.%d/16"]}],"nccl_socket_ifname":"ens5",'
         '"gloo_socket_ifname":null,"nccl_ifname_match":["ens5"],"gloo_ifname_match":[],'
         '"shm_total":68719476736,"shm_free":68700000000,"memlock_soft":null,"memlock_hard":null,'
         '"nofile_soft":1048576,"nofile_hard":1048576,"cpus":96'
         % (host, i // 65536, (i // 256) % 256, i % 256))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=16384)
    ap.add_argument("--per-host", type=int, default=8)
    ap.add_argument("--threads", type=int, default=12)
    ap.add_argument("--stuck", type=int, default=7777)
    ap.add_argument("--scenario", choices=("straggler", "distinct", "exited"),
                    default="straggler")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    hosts = (a.ranks + a.per_host - 1) // a.per_host
    stuck = a.stuck % a.ranks
    root = "10.0.0.1:41234"
    for h in range(hosts):
        host = "gpu%05d" % h
        boot = "b00t%04x-0000-4000-8000-%012x" % (h % 65536, h)
        mono0 = 1000.0 + h * 0.37
        # The torchrun agent, an srun task.
        apid = 10000
        w = W(apid, mono0)
        env = {"SLURM_PROCID": str(h), "SLURM_NTASKS": str(hosts), "SLURM_LOCALID": "0",
               "SLURM_JOB_ID": "4242", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"}
        w.out.append(header(host, apid, 9999, h, hosts, 0, "slurm", boot, mono0, 0.0,
                            ["/usr/bin/python3", "-m", "torch.distributed.run",
                             "--nproc-per-node=%d" % a.per_host, "train.py"], env, "identity"))
        w.ev(0.0, "phase", '"phase":"launch","state":"begin"')
        w.ev(0.5, "phase", '"phase":"rendezvous","state":"begin","dest":"10.0.0.1:29400",'
             '"role":"rendezvous"')
        w.ev(0.6, "connect", '"dest":"10.0.0.1:29400","role":"rendezvous","result":"ok",'
             '"errno":0,"error":null,"count":1,"first":%s,"last":%s,"dur":0.001000'
             % (f6(mono0 + 0.6), f6(mono0 + 0.6)))
        w.ev(0.7, "phase", '"phase":"rendezvous","state":"end","dest":"10.0.0.1:29400",'
             '"role":"rendezvous","dur":0.200000')
        with open(os.path.join(a.out, "%s.%d.jsonl" % (host, apid)), "w") as f:
            f.write("".join(w.out))
        for lr in range(a.per_host):
            r = h * a.per_host + lr
            if r >= a.ranks:
                break
            pid = 20000 + lr * 100
            w = W(pid, mono0)
            env = {"RANK": str(r), "WORLD_SIZE": str(a.ranks), "LOCAL_RANK": str(lr),
                   "LOCAL_WORLD_SIZE": str(a.per_host), "GROUP_RANK": str(h),
                   "TORCHELASTIC_RUN_ID": "4242", "MASTER_ADDR": "10.0.0.1",
                   "MASTER_PORT": "29500", "NCCL_SOCKET_IFNAME": "ens5",
                   "CUDA_HOME": "/usr/local/cuda", "SLURM_JOB_ID": "4242",
                   "SLURM_PROCID": str(h), "SLURM_NTASKS": str(hosts)}
            w.out.append(header(host, pid, apid, r, a.ranks, lr, "torchrun", boot, mono0, 1.0,
                                ["/usr/bin/python3", "-u", "train.py", "--config", "big.yaml"],
                                env, "identity"))
            w.ev(1.0, "phase", '"phase":"launch","state":"begin"')
            host_line(w, 1.01, host, h)
            if r == stuck:
                dumps(w, 1.0, "launch", NATIVE_LOAD, PY_LOAD, a.threads,
                      (280.0, 570.0, 1150.0), (40 << 30, 80 << 30, 160 << 30), None)
            else:
                t = 2.0
                w.ev(t, "phase", '"phase":"cuda_init","state":"begin","fn":"cuInit","via":'
                     '"cuGetProcAddress","caller":"libcudart.so.12","runtime_version":12040')
                w.ev(t + 0.4, "phase", '"phase":"cuda_init","state":"end","fn":"cuInit","via":'
                     '"cuGetProcAddress","caller":"libcudart.so.12","result":0,"error":null,'
                     '"libcuda":"/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15","stub":false,'
                     '"driver_version":12040,"runtime_version":12040,"lookups":812')
                w.ev(t + 0.4, "version", '"what":"cuda_driver","value":12040,"provider":'
                     '"/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"')
                w.ev(t + 0.4, "version", '"what":"cuda_runtime","value":12040,"provider":'
                     '"libcudart.so.12"')
                w.ev(t + 0.5, "phase", '"phase":"device","state":"begin","via":'
                     '"cuDevicePrimaryCtxRetain","ordinal":%d' % lr)
                w.ev(t + 0.9, "phase", '"phase":"device","state":"end","via":'
                     '"cuDevicePrimaryCtxRetain","ordinal":%d,"uuid":"GPU-%08x-0000-4000-8000-'
                     '%012x","pci_bus_id":"0000:%02x:00.0","device_count":%d,'
                     '"visible_devices":null,"local_rank":%d'
                     % (lr, h, lr, 0x18 + lr * 8, a.per_host, lr))
                w.ev(3.0, "phase", '"phase":"rendezvous","state":"begin","dest":'
                     '"10.0.0.1:29500","role":"rendezvous"')
                w.ev(3.01, "connect", '"dest":"10.0.0.1:29500","role":"rendezvous","result":'
                     '"ok","errno":0,"error":null,"count":1,"first":%s,"last":%s,'
                     '"dur":0.001000' % (f6(mono0 + 3.0), f6(mono0 + 3.0)))
                w.ev(3.02, "phase", '"phase":"rendezvous","state":"end","dest":'
                     '"10.0.0.1:29500","role":"rendezvous","dur":0.020000')
                ids = ('"root":"%s","id_hash":"0x5be0cd19137e2179","commid":"0x19137e217900",'
                       '"commid_old":null,"fixed_magic":false,"n_ids":1' % root)
                if r == 0:
                    w.ev(4.0, "phase", '"phase":"nccl_id","state":"begin"')
                    w.ev(4.01, "phase", '"phase":"nccl_id","state":"end","root":"%s",'
                         '"magic":"0x9a1f3c5d7e2b4a60","fixed_magic":false,"id_hash":'
                         '"0x5be0cd19137e2179","commid":"0x19137e217900","commid_old":null' % root)
                w.ev(4.5, "version", '"what":"nccl","value":22105,"provider":'
                     '"/usr/lib/python3/dist-packages/nvidia/nccl/lib/libnccl.so.2"')
                w.ev(4.5, "nccl", '"fn":"ncclCommInitRank","state":"begin","comm":null,'
                     '"nranks":%d,"rank":%d,"blocking":null,"comm_name":null,"nested":false,'
                     '"nccl_version":22105,%s' % (a.ranks, r, ids))
                w.ev(4.5, "phase", '"phase":"nccl_init","state":"begin","fn":"ncclCommInitRank",'
                     '"nranks":%d,"rank":%d,%s' % (a.ranks, r, ids))
                w.ev(4.5, "call", '"name":"ncclCommInitRank","state":"begin","id":1')
                py = PY_WAIT
                if a.scenario == "distinct":
                    py = PY_WAIT[:3] + ["main (/work/train.py:%d)" % (90 + r)] + PY_WAIT[4:]
                dumps(w, 4.5, "nccl_init", NATIVE_WAIT, py, a.threads,
                      (3.2, 3.21, 3.22), (5 << 20, 5 << 20, 5 << 20), "ncclCommInitRank")
                if a.scenario == "exited":
                    w.ev(1300.0, "exit", '"status":1')
            with open(os.path.join(a.out, "%s.%d.jsonl" % (host, pid)), "w") as f:
                f.write("".join(w.out))


if __name__ == "__main__":
    main()
