// SPDX-License-Identifier: MIT
/*
 * hook_types.h: the types the prototypes of hooks.def use. They are our own
 * declarations, not cuda.h or nccl.h, so the library builds where those are
 * absent; hooks/cuda/proto_check_cuda.c and hooks/nccl/proto_check_nccl.c
 * compare them with the real headers.
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

/*
 * CUDA driver API (hooks_cuda.def). CUresult and
 * CUdriverProcAddressQueryResult are enums without negative values, which
 * GCC and Clang give the type unsigned int; CUdevice is an int; handles are
 * pointers to the driver's opaque structs, declared here by the same tags
 * so that the prototype check finds them identical to cuda.h's.
 */
typedef unsigned int ht_cu_result;
typedef unsigned int ht_cu_proc_status;
typedef int ht_cu_device;
struct CUctx_st;
struct CUstream_st;
struct CUevent_st;
struct CUexecAffinityParam_st;
struct CUctxCreateParams_st;
struct CUuuid_st;

/* NCCL (nccl.h): the enums are int-sized, the id is 128 bytes passed by
 * value, the config is only ever reached through a pointer (hooks/nccl/nccl.h
 * has its layout); hooks/nccl/proto_check_nccl.c compares each with nccl.h. */
typedef int ht_nccl_result_t;			/* ncclResult_t */
typedef int ht_nccl_dtype_t;			/* ncclDataType_t */
typedef int ht_nccl_redop_t;			/* ncclRedOp_t */
typedef struct ht_nccl_comm *ht_nccl_comm_t;	/* ncclComm_t */
typedef struct ht_nccl_config ht_nccl_config_t;	/* ncclConfig_t */
typedef struct ht_nccl_stream *ht_nccl_stream_t;	/* cudaStream_t */
typedef struct { char internal[128]; } ht_nccl_uid_t;	/* ncclUniqueId */

/* MPI (hooks_mpi.def): handles are pointers in Open MPI (struct
 * ompi_communicator_t * and the like) and ints in MPICH; passed as a
 * pointer-sized word they reach the real function unchanged (x86-64 and
 * aarch64 pass both in one register or stack slot). The wrappers never look
 * inside them. Status is only ever reached through a pointer. */
typedef void *ht_mpi_handle_t;		/* MPI_Comm, MPI_Datatype, MPI_Op */
typedef void *ht_mpi_request_t;		/* MPI_Request */
typedef void ht_mpi_status_t;		/* MPI_Status */

#endif
