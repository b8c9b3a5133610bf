// SPDX-License-Identifier: MIT
/*
 * wire.h: the few socket helpers of `hangtrace check` (wire.c): connects
 * and reads with deadlines, one JSON object per line each way.
 */
#ifndef HT_CLI_CHECK_WIRE_H
#define HT_CLI_CHECK_WIRE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct chk_conn {
	int fd;
	char buf[65536];
	size_t n;
	bool closed;
};

/*
 * Connects to host:port (resolved; every address tried) within secs
 * seconds, retrying refused connects every 50 ms while retry is true.
 * Returns the fd, or -errno of the last attempt (-ETIMEDOUT when nobody
 * answered). *dest gets the "ip:port" last tried.
 */
int ht_chk_connect(const char *host, int port, double secs, bool retry, char *dest, size_t cap);
/* Listens on addr (NULL: every address) and port (0: any); -errno or the fd.
 * *bound gets the port. */
int ht_chk_listen(const char *addr, int port, int *bound);
/* Sends one object as a line (and frees it). 0 or -errno. */
int ht_chk_send(int fd, json_t *o);
/* Reads what is there without blocking; the next whole line as an object
 * (caller decrefs), NULL when none yet (c->closed: the peer closed). */
json_t *ht_chk_take(struct chk_conn *c);
/* Waits up to secs for the next object; NULL on timeout or close. */
json_t *ht_chk_recv(struct chk_conn *c, double secs);

#endif
