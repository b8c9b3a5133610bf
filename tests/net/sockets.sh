#!/bin/sh
# SPDX-License-Identifier: MIT
# sockets.sh: the network hooks under small C clients and servers
# (tests/net/netprobe.c): SO_ERROR still reaches the application, ordinary
# TCP and AF_UNIX traffic is unchanged, NCCL-style retry floods come out as
# a handful of lines with exact counts, a store's server names who arrived,
# a SYN that nobody answers shows as SYN_SENT, host facts, and the cost.
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ranks.shlib"

# traced DIR VAR=VALUE... -- CMD...: CMD as rank 0 under the library.
traced() {
	_d=$1
	shift
	env RANK=0 WORLD_SIZE=1 HANGTRACE_DIR="$_d" HANGTRACE_TIMEOUT=30 LD_PRELOAD="$LIB" "$@"
}

# ---- the application reads SO_ERROR itself and still gets 111 -----------------
P=$(free_port)
"$PROBE" soerror "$P" >"$T/soerror.bare" 2>&1
traced "$T/soerror" MASTER_ADDR=127.0.0.1 MASTER_PORT="$P" "$PROBE" soerror "$P" >"$T/soerror.out" 2>&1
check so_error_still_reaches_app grep -qx 'getsockopt=0 so_error=111 errno=4242' "$T/soerror.out"
check so_error_output_unchanged cmp -s "$T/soerror.bare" "$T/soerror.out"
check so_error_recorded_refused tq "$T/soerror" "(
  [(e['dest'], e['role'], e['result'], e['errno'], e['error'], e['count'])
   for e in events('connect')] == [('127.0.0.1:$P', 'rendezvous', 'refused', 111, 'ECONNREFUSED', 1)]
  and ev('phase', phase='rendezvous', state='begin')['dest'] == '127.0.0.1:$P'
  and not ev('phase', phase='rendezvous', state='end'))"

# ---- TCP echo (blocking, non-blocking, IPv4-mapped) and AF_UNIX, unchanged -------
"$PROBE" echo >"$T/echo.bare" 2>&1
echo "rc=$?" >>"$T/echo.bare"
traced "$T/echo" "$PROBE" echo >"$T/echo.out" 2>&1
echo "rc=$?" >>"$T/echo.out"
check echo_and_unix_unchanged cmp -s "$T/echo.bare" "$T/echo.out"
check echo_output_sane grep -qx "tcp-mapped: sent 'mapped' got 'mapped'" "$T/echo.out"
# Three connects to one listener (one of them to ::ffff:127.0.0.1) are one
# destination; AF_UNIX connects leave no connect line; an ordinary
# listener's accepts are written at the 1st, 2nd, 4th... like connects.
check echo_mapped_counted_as_ipv4 tq "$T/echo" "(
  [e['count'] for e in events('connect') if e['result'] == 'ok'] in ([1, 2, 3], [1, 2])
  and all(e['dest'].startswith('127.0.0.1:') and e['role'] == 'other' for e in events('connect'))
  and [e['count'] for e in events('accept')] == [1, 2]
  and ev('listen')['addr'].startswith('127.0.0.1:'))"

# ---- a UDP connect to MASTER_ADDR:MASTER_PORT is no rendezvous ----------------------
traced "$T/udp" MASTER_ADDR=127.0.0.1 MASTER_PORT="$P" "$PY" -c "
import socket
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.connect(('127.0.0.1', $P)); u.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.connect(('127.0.0.2', 9)); u.close()"
check udp_connect_ignored tq "$T/udp" "len(procs) == 1 and not events('connect') and not ev('phase', phase='rendezvous')"

# ---- the other endpoints: torchrun's rendezvous, JAX's coordinator ---------------
P=$(free_port)
J=$(free_port)
traced "$T/roles" PET_RDZV_ENDPOINT=localhost JAX_COORDINATOR_ADDRESS="127.0.0.1:$J" "$PY" -c "
import socket
for port in (29400, $J, $P):
    s = socket.socket(); s.connect_ex(('127.0.0.1', port)); s.close()"
check endpoint_roles tq "$T/roles" "(
  [(e['dest'], e['role']) for e in events('connect')] ==
    [('127.0.0.1:29400', 'rendezvous'), ('127.0.0.1:$J', 'jax_coordinator'), ('127.0.0.1:$P', 'other')]
  and ev('resolve', what='JAX_COORDINATOR_ADDRESS')['addrs'] == ['127.0.0.1']
  and ev('phase', phase='rendezvous', state='begin')['dest'] == '127.0.0.1:29400')"

# ---- NCCL's retry loop: 34 attempts, a new socket each ------------------------------
P=$(free_port)
traced "$T/retry" NCCL_COMM_ID="127.0.0.1:$P" "$PROBE" retry 127.0.0.1 "$P" 34 5 >"$T/retry.out"
check retry_app_saw_34 grep -qx 'attempts=34 last=111' "$T/retry.out"
check retry_lines_1_2_4_8_16_32_then_exact_count tq "$T/retry" "(
  [(e['count'], bool(e.get('summary'))) for e in events('connect')] ==
    [(1, False), (2, False), (4, False), (8, False), (16, False), (32, False), (34, True)]
  and all(e['role'] == 'nccl_bootstrap' and e['result'] == 'refused' for e in events('connect'))
  and events('connect')[-1]['last'] > events('connect')[-1]['first'])"

# ---- a store's server: who arrived, and a second server on its port ----------------
P=$(free_port)
launch serve 0 env RANK=0 WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT="$P" HANGTRACE_DIR="$T/serve" \
	HANGTRACE_TIMEOUT=30 LD_PRELOAD="$LIB" "$PROBE" serve "$P" 3
wait_tq 10 "$T/serve" "ev('listen')" || fail serve_listening "the server never listened"
# While it listens, a second server cannot have the port.
timeout 10 env RANK=9 MASTER_ADDR=127.0.0.1 MASTER_PORT="$P" HANGTRACE_DIR="$T/serve2" \
	LD_PRELOAD="$LIB" "$PROBE" serve "$P" 1 >/dev/null 2>&1
for r in 1 2 3; do
	timeout 10 env RANK=$r WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT="$P" HANGTRACE_DIR="$T/serve" \
		HANGTRACE_TIMEOUT=30 LD_PRELOAD="$LIB" "$PROBE" retry 127.0.0.1 "$P" 5 50 >/dev/null
done
end_job serve 10
check serve_names_arrivals tq "$T/serve" "(
  proc(rank=0).ev('listen')['addr'] == '0.0.0.0:$P' and proc(rank=0).ev('listen')['role'] == 'rendezvous'
  and [e['count'] for e in proc(rank=0).evs('accept')] == [1, 2, 3]
  and all(e['peer'].startswith('127.0.0.1:') and e['role'] == 'rendezvous' for e in proc(rank=0).evs('accept'))
  and all(proc(rank=r).ev('phase', phase='rendezvous', state='end') for r in (1, 2, 3)))"
check serve_port_taken_recorded tq "$T/serve2" "(
  ev('listen', fn='bind')['error'] == 'EADDRINUSE' and ev('listen', fn='bind')['role'] == 'rendezvous'
  and ev('listen', fn='bind')['addr'] == '0.0.0.0:$P')"

# ---- nobody answers the SYN: pending in SYN_SENT, then given up ---------------------
# A loopback listener whose accept queue is full drops SYNs, as a firewall would.
# The waiting thread is described from /proc, not signalled (hooks/net/net.c:
# ht__net_dump_may_signal): its poll would fail with EINTR.
launch fullq 0 "$PROBE" fullq 20
for i in 1 2 3 4 5 6 7 8 9 10; do [ -s "$T/fullq.out.0" ] && break; sleep 0.2; done
FQ=$(cat "$T/fullq.out.0")
env RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT="$FQ" HANGTRACE_DIR="$T/syn" HANGTRACE_TIMEOUT=1 \
	LD_PRELOAD="$LIB" "$PROBE" pending 127.0.0.1 "$FQ" 3 >"$T/syn.out" 2>"$T/syn.err"
check syn_sent_probed tq "$T/syn" "(
  [e['tcp_state'] for e in events('connect', probe=True)][:2] == ['SYN_SENT', 'SYN_SENT']
  and all(e['result'] == 'pending' and e['role'] == 'rendezvous' for e in events('connect', probe=True))
  and any(s['phase'] == 'rendezvous' for s, t, e in procs[0].dumps)
  and all(t['answered'] is False and t['syscall'] and t['wchan']
          for s, ts, e in procs[0].dumps for t in ts if t['main']))"
check syn_sent_given_up_is_timeout tq "$T/syn" "(
  [(e['result'], e['error']) for e in events('connect') if not e.get('probe')] == [('timeout', 'ETIMEDOUT')]
  and procs[0].exit['status'] == 0)"
check syn_sent_app_unchanged grep -qx 'poll=0' "$T/syn.out"
# The same pending connect, its descriptor closed in bulk with close_range:
# settled when it closed, never probed as pending by the dumps after.
env RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT="$FQ" HANGTRACE_DIR="$T/synclosed" HANGTRACE_TIMEOUT=1 \
	LD_PRELOAD="$LIB" "$PROBE" closed 127.0.0.1 "$FQ" 2 >"$T/synclosed.out" 2>&1
check close_range_settles_pending tq "$T/synclosed" "(
  len(procs[0].dumps) >= 1 and not events('connect', probe=True)
  and [e['result'] for e in events('connect') if not e.get('probe')] != [])"
check close_range_app_unchanged grep -q 'close_range=0' "$T/synclosed.out"

# ---- host facts: interfaces and NCCL_SOCKET_IFNAME ----------------------------------
traced "$T/ifbad" NCCL_SOCKET_IFNAME=doesnotexist0 GLOO_SOCKET_IFNAME=doesnotexist0 /bin/true
traced "$T/ifgood" NCCL_SOCKET_IFNAME=lo GLOO_SOCKET_IFNAME=lo MASTER_ADDR=localhost MASTER_PORT=29500 /bin/true
check ifname_missing_flagged tq "$T/ifbad" "(
  ev('host')['nccl_socket_ifname'] == 'doesnotexist0' and ev('host')['nccl_ifname_match'] == []
  and ev('host')['gloo_ifname_match'] == []
  and any(w['msg'].startswith('NCCL_SOCKET_IFNAME=doesnotexist0 selects no interface') for w in events('warning'))
  and any(w['msg'].startswith('GLOO_SOCKET_IFNAME=doesnotexist0 selects no interface') for w in events('warning')))"
check ifname_present_matched tq "$T/ifgood" "(
  ev('host')['nccl_ifname_match'] == ['lo'] and ev('host')['gloo_ifname_match'] == ['lo']
  and not events('warning') and 'lo' in [i['name'] for i in ev('host')['ifaces']])"
check host_facts_recorded tq "$T/ifgood" "(
  ev('host')['shm_total'] > 0 and ev('host')['shm_free'] >= 0 and ev('host')['cpus'] >= 1
  and ev('host')['nofile_soft'] > 0 and 'memlock_soft' in ev('host')
  and ev('resolve', what='MASTER_ADDR')['name'] == 'localhost'
  and '127.0.0.1' in ev('resolve', what='MASTER_ADDR')['addrs']
  and ev('resolve', what='MASTER_ADDR')['loopback'] is True
  and ev('resolve', what='hostname')['name'] == ev('host')['hostname'])"

# ---- a process that is not relevant is left alone ------------------------------------
P=$(free_port)
env -u RANK MASTER_ADDR=127.0.0.1 MASTER_PORT="$P" HANGTRACE_DIR="$T/idle" LD_PRELOAD="$LIB" \
	"$PROBE" soerror "$P" >"$T/idle.out" 2>&1
check irrelevant_process_untouched [ ! -e "$T/idle" ] && cmp -s "$T/idle.out" "$T/soerror.bare"

# ---- cost: a connect the kernel answers at once (EISCONN), best of 3 -----------------
best() { sort -n | head -n 1; }
P=$(free_port)
for i in 1 2 3; do
	"$PROBE" bench 20000 "$P" | sed -n 's/^isconn_nonblocking_connect_ns=//p' >>"$T/bare.ns"
	env RANK=0 HANGTRACE_DIR="$T/bench" LD_PRELOAD="$LIB" "$PROBE" bench 20000 "$P" |
		sed -n 's/^isconn_nonblocking_connect_ns=//p' >>"$T/traced.ns"
done
BARE=$(best <"$T/bare.ns")
TRACED=$(best <"$T/traced.ns")
ADDED=$("$PY" -c "print(int($TRACED - $BARE))")
echo "# hooked IPv4 connect: $BARE ns bare, $TRACED ns traced: +$ADDED ns (budget 1000)"
check connect_cost_within_budget [ "$ADDED" -lt 1000 ]
finish
