// SPDX-License-Identifier: MIT
/*
 * net.c: the network family (connect, getsockopt, bind, listen, accept):
 * rendezvous tracking and host facts. (Placeholder until the family lands.)
 */
#include "ht.h"

void ht__net_activate(void) {}
void ht__net_fork_child(void) {}
void ht__net_fd_closing(int fd) { (void)fd; }
void ht__net_dump(void) {}
