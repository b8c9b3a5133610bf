// SPDX-License-Identifier: MIT
/*
 * signals.h: the signals the library owns (signals.c).
 */
#ifndef HT_CORE_SIGNALS_H
#define HT_CORE_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Installs our handlers for SIGTERM, the fatal signals and the dump signal,
 * keeping the application's as the ones to chain to. */
int ht_signals_install(void);
/* The signals the library owns (sigaction/signal answers with the app's). */
bool ht_signal_owned(int sig);
/* sigaction on behalf of the application for an owned signal. */
int ht_signal_app_action(int sig, const struct sigaction *act, struct sigaction *old);
/* Picks the dump signal: a real-time signal nobody handles. */
int ht_signal_pick_dump(void);
/* Sends the unwind request to one thread (rt_tgsigqueueinfo with our tag
 * carrying its slot and the dump's generation). */
int ht_signal_thread(pid_t tid, uint32_t slot, uint32_t gen);
/* True while thread tid waits in the library's SIGTERM handler for its
 * dump: its wait (a nanosleep loop) is the library's, so an unwind signal
 * that interrupts it harms nothing, whatever the families say. */
bool ht_signal_in_term(pid_t tid);

#endif
