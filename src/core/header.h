// SPDX-License-Identifier: MIT
/*
 * header.h: the header and exec lines that open a trace file (header.c).
 */
#ifndef HT_CORE_HEADER_H
#define HT_CORE_HEADER_H

#include "state.h"

/* Writes the header line: who, where, why the process is traced. */
void ht_proc_write_header(enum ht_reason why);
/* Writes the exec line of an image that continues its process's file. */
void ht_proc_write_exec(void);

#endif
