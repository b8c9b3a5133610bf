// SPDX-License-Identifier: MIT
/*
 * hangtrace.h: the one public header. It fixes the vocabulary shared by the
 * preload library, which writes trace files, and the `hangtrace` command,
 * which reads them: startup phases, trace event types and verdict codes, each
 * as one X-macro list so that enums and name tables are generated, never
 * indexed by hand. The field-by-field contract of every event is in
 * doc/trace-format.md; SPEC.md section 7 is its public subset.
 */
#ifndef HANGTRACE_H
#define HANGTRACE_H

#define HT_TRACE_FORMAT "hangtrace/1"
#define HT_REPORT_FORMAT "hangtrace-report/1"
/* HT_VERSION, the release, comes from the file VERSION through the
 * Makefile (-DHT_VERSION), the one place the wheel reads it too. */
#ifndef HT_VERSION
#error "HT_VERSION is defined by the Makefile from the file VERSION"
#endif

/*
 * Startup phases in the order a healthy rank normally reaches them
 * (SPEC section 5). The order is also the order the report uses to decide
 * that one rank is "earlier" than another.
 */
#define HT_PHASE_MAP(XX)        \
	XX(LAUNCH, "launch")           \
	XX(RENDEZVOUS, "rendezvous")   \
	XX(CUDA_INIT, "cuda_init")     \
	XX(DEVICE, "device")           \
	XX(NCCL_ID, "nccl_id")         \
	XX(NCCL_INIT, "nccl_init")     \
	XX(FIRST_COLLECTIVE, "first_collective") \
	XX(STEADY, "steady")

enum ht_phase {
#define XX(id, name) HT_PHASE_##id,
	HT_PHASE_MAP(XX)
#undef XX
	HT_PHASE_COUNT
};

/* Trace event types (the "t" field of every line). */
#define HT_EVENT_MAP(XX)          \
	XX(HEADER, "header")             \
	XX(PHASE, "phase")               \
	XX(CALL, "call")                 \
	XX(CONNECT, "connect")           \
	XX(LISTEN, "listen")             \
	XX(ACCEPT, "accept")             \
	XX(RESOLVE, "resolve")           \
	XX(HOST, "host")                 \
	XX(IDENTITY, "identity")         \
	XX(VERSION, "version")           \
	XX(CUDA, "cuda")                 \
	XX(NCCL, "nccl")                 \
	XX(FORK, "fork")                 \
	XX(EXEC, "exec")                 \
	XX(SIGNAL, "signal")             \
	XX(STALL, "stall")               \
	XX(THREAD, "thread")             \
	XX(DUMP_END, "dump_end")         \
	XX(WARNING, "warning")           \
	XX(EXIT, "exit")                 \
	XX(IB, "ib")                     \
	XX(CHECK, "check")               \
	XX(BUILD_LOCK, "build_lock")     \
	XX(STORE, "store")

enum ht_event_type {
#define XX(id, name) HT_EV_##id,
	HT_EVENT_MAP(XX)
#undef XX
	HT_EV_COUNT
};

/* Verdict codes of `hangtrace report` (SPEC section 8); stable names. The
 * columns: the code, its name, its priority (smaller: likelier the root
 * cause, among verdicts that follow from no other: the order of the report
 * when causes tie), its severity when it explains a stall or a failure (a
 * rule says WARNING instead for a risk that caused none), and whether it
 * may be an EFFECT of another verdict (it describes ranks that wait: it
 * then names the verdict about whom they wait for in `because`) or is
 * always a CAUSE of its own (a misconfiguration of the ranks it blames). */
#define HT_VERDICT_MAP(XX) \
	XX(MISSING_RANK, "missing_rank", 71, ERROR, CAUSE) \
	XX(RANK_EXITED, "rank_exited", 70, ERROR, EFFECT) \
	XX(STRAGGLER, "straggler", 72, ERROR, EFFECT) \
	XX(WORLD_SIZE_MISMATCH, "world_size_mismatch", 10, ERROR, CAUSE) \
	XX(DUPLICATE_RANK, "duplicate_rank", 11, ERROR, CAUSE) \
	XX(RENDEZVOUS_UNREACHABLE, "rendezvous_unreachable", 31, ERROR, EFFECT) \
	XX(MASTER_ADDR_LOOPBACK, "master_addr_loopback", 29, ERROR, CAUSE) \
	XX(SOCKET_IFNAME_MISSING, "socket_ifname_missing", 30, ERROR, CAUSE) \
	XX(UNIQUE_ID_MISMATCH, "unique_id_mismatch", 50, ERROR, CAUSE) \
	XX(DUPLICATE_GPU, "duplicate_gpu", 40, ERROR, CAUSE) \
	XX(TOO_MANY_LOCAL_RANKS, "too_many_local_ranks", 42, ERROR, CAUSE) \
	XX(VISIBLE_DEVICES_INCONSISTENT, "visible_devices_inconsistent", 41, ERROR, CAUSE) \
	XX(CUDA_INIT_FAILED, "cuda_init_failed", 22, ERROR, CAUSE) \
	XX(CUDA_INIT_HANG, "cuda_init_hang", 23, ERROR, CAUSE) \
	XX(STUB_DRIVER, "stub_driver", 20, ERROR, CAUSE) \
	XX(DRIVER_TOO_OLD, "driver_too_old", 21, ERROR, CAUSE) \
	XX(FORK_AFTER_CUDA_INIT, "fork_after_cuda_init", 45, ERROR, CAUSE) \
	XX(VERSION_MISMATCH, "version_mismatch", 55, ERROR, CAUSE) \
	XX(NCCL_INIT_ERROR, "nccl_init_error", 51, ERROR, EFFECT) \
	XX(COLLECTIVE_MISMATCH, "collective_mismatch", 60, ERROR, CAUSE) \
	XX(COLLECTIVE_LAG, "collective_lag", 75, ERROR, EFFECT) \
	XX(SHM_TOO_SMALL, "shm_too_small", 52, ERROR, CAUSE) \
	XX(STALLED, "stalled", 90, ERROR, EFFECT) \
	XX(DATALOADER_STALLED, "dataloader_stalled", 66, ERROR, CAUSE) \
	XX(DATALOADER_WORKER_DIED, "dataloader_worker_died", 65, ERROR, CAUSE) \
	XX(BUILD_LOCK_WAIT, "build_lock_wait", 46, ERROR, CAUSE) \
	XX(IB_MISCONFIGURED, "ib_misconfigured", 33, ERROR, CAUSE) \
	XX(ADDRESS_CONFLICT, "address_conflict", 28, ERROR, CAUSE) \
	XX(PEER_UNREACHABLE, "peer_unreachable", 32, ERROR, CAUSE) \
	XX(PORT_IN_USE, "port_in_use", 27, ERROR, CAUSE) \
	XX(STALE_STORE, "stale_store", 26, ERROR, CAUSE) \
	XX(CLOCK_SKEW, "clock_skew", 56, WARNING, CAUSE) \
	XX(NCCL_SELFTEST_FAILED, "nccl_selftest_failed", 80, ERROR, CAUSE) \
	XX(TRACING_DEGRADED, "tracing_degraded", 95, WARNING, CAUSE)

enum ht_verdict_code {
#define XX(id, name, prio, sev, role) HT_VERDICT_##id,
	HT_VERDICT_MAP(XX)
#undef XX
	HT_VERDICT_COUNT
};

/* Why a dump was taken (the "reason" of a stall event). */
#define HT_DUMP_REASON_MAP(XX) \
	XX(TIMEOUT, "timeout")        \
	XX(SIGTERM, "sigterm")        \
	XX(ON_DEMAND, "on_demand")

enum ht_dump_reason {
#define XX(id, name) HT_DUMP_##id,
	HT_DUMP_REASON_MAP(XX)
#undef XX
	HT_DUMP_REASON_COUNT
};

/* The name of a phase, event type, verdict or dump reason; NULL if out of range. */
const char *ht_phase_name(int phase);
const char *ht_event_name(int type);
const char *ht_verdict_name(int code);
const char *ht_dump_reason_name(int reason);

/* The value whose name is s, or -1. */
int ht_phase_from_name(const char *s);
int ht_event_from_name(const char *s);
int ht_verdict_from_name(const char *s);

#endif /* HANGTRACE_H */
