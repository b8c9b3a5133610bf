// SPDX-License-Identifier: MIT
/*
 * hook_types.h: the types the prototypes of hooks.def use. They are our own
 * declarations, not cuda.h or nccl.h, so the library builds where those are
 * absent; hooks/proto_check.c compares them with the real headers.
 */
#ifndef HT_HOOK_TYPES_H
#define HT_HOOK_TYPES_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#endif
