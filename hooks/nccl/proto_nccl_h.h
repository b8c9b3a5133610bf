// SPDX-License-Identifier: MIT
/*
 * proto_nccl_h.h: the real nccl.h, for hooks/nccl/proto_check_nccl.c only. Our
 * family header hooks/nccl/nccl.h comes first on the include path (-Ihooks), so
 * the real one is reached with #include_next from a header in hooks/.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"	/* ncclGroupStart(); */
#include_next <nccl.h>
#pragma GCC diagnostic pop
