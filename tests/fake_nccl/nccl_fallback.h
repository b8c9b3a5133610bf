// SPDX-License-Identifier: MIT
// Minimal stand-in for NCCL 2.28.9's <nccl.h>, used to build the fake NCCL (and its selftest) when no
// CUDA toolkit with nccl.h is installed. It declares only what the fake implements: the opaque types,
// the result/datatype/redop enums, ncclConfig_t with NCCL_CONFIG_INITIALIZER, and the ncclX/pncclX
// prototypes, with the same values and layouts as the real header so binaries are ABI-compatible.
#ifndef FAKE_NCCL_FALLBACK_H_
#define FAKE_NCCL_FALLBACK_H_

#include <limits.h>
#include <stddef.h>

#define NCCL_MAJOR 2
#define NCCL_MINOR 28
#define NCCL_PATCH 9
#define NCCL_SUFFIX ""
#define NCCL_VERSION_CODE 22809
#define NCCL_VERSION(X, Y, Z) \
  (((X) <= 2 && (Y) <= 8) ? (X) * 1000 + (Y) * 100 + (Z) : (X) * 10000 + (Y) * 100 + (Z))

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st *cudaStream_t; /* same tag as CUDA's driver_types.h */

typedef struct ncclComm *ncclComm_t;
#define NCCL_COMM_NULL NULL

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct { char internal[NCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
  ncclNumResults = 8
} ncclResult_t;

#define NCCL_CONFIG_UNDEF_INT INT_MIN
#define NCCL_CONFIG_UNDEF_PTR NULL
#define NCCL_SPLIT_NOCOLOR -1

typedef struct ncclConfig_v22800 {
  size_t size;
  unsigned int magic;
  unsigned int version;
  int blocking;
  int cgaClusterSize;
  int minCTAs;
  int maxCTAs;
  const char *netName;
  int splitShare;
  int trafficClass;
  const char *commName;
  int collnetEnable;
  int CTAPolicy;
  int shrinkShare;
  int nvlsCTAs;
  int nChannelsPerNetPeer;
  int nvlinkCentricSched;
} ncclConfig_t;

#define NCCL_CONFIG_INITIALIZER                                                                    \
  {                                                                                                \
    sizeof(ncclConfig_t), 0xcafebeef, NCCL_VERSION(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH),            \
        NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, \
        NCCL_CONFIG_UNDEF_PTR, NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_PTR, \
        NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, \
        NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT,                                              \
  }

typedef enum { ncclNumOps_dummy = 5 } ncclRedOp_dummy_t;
typedef enum {
  ncclSum = 0,
  ncclProd = 1,
  ncclMax = 2,
  ncclMin = 3,
  ncclAvg = 4,
  ncclNumOps = 5,
  ncclMaxRedOp = 0x7fffffff >> (32 - 8 * sizeof(ncclRedOp_dummy_t))
} ncclRedOp_t;

typedef enum {
  ncclInt8 = 0, ncclChar = 0,
  ncclUint8 = 1,
  ncclInt32 = 2, ncclInt = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6, ncclHalf = 6,
  ncclFloat32 = 7, ncclFloat = 7,
  ncclFloat64 = 8, ncclDouble = 8,
  ncclBfloat16 = 9,
  ncclFloat8e4m3 = 10,
  ncclFloat8e5m2 = 11,
  ncclNumTypes = 12
} ncclDataType_t;

/* Each function exists as ncclX (weak) and pncclX (strong), like NCCL built with PROFAPI. */
#define FAKE_NCCL_DECL2(ret, name, args) ret name args; ret p##name args;

FAKE_NCCL_DECL2(ncclResult_t, ncclGetVersion, (int *version))
FAKE_NCCL_DECL2(ncclResult_t, ncclGetUniqueId, (ncclUniqueId *uniqueId))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommInitRankConfig,
                (ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t *config))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommInitRank, (ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommInitAll, (ncclComm_t *comm, int ndev, const int *devlist))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommFinalize, (ncclComm_t comm))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommDestroy, (ncclComm_t comm))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommAbort, (ncclComm_t comm))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommSplit,
                (ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommInitRankScalable,
                (ncclComm_t *newcomm, int nranks, int myrank, int nId, ncclUniqueId *commIds,
                 ncclConfig_t *config))
FAKE_NCCL_DECL2(const char *, ncclGetErrorString, (ncclResult_t result))
FAKE_NCCL_DECL2(const char *, ncclGetLastError, (ncclComm_t comm))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommGetAsyncError, (ncclComm_t comm, ncclResult_t *asyncError))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommCount, (const ncclComm_t comm, int *count))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommCuDevice, (const ncclComm_t comm, int *device))
FAKE_NCCL_DECL2(ncclResult_t, ncclCommUserRank, (const ncclComm_t comm, int *rank))
FAKE_NCCL_DECL2(ncclResult_t, ncclReduce,
                (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                 ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream))
FAKE_NCCL_DECL2(ncclResult_t, ncclBcast,
                (void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                 cudaStream_t stream))
FAKE_NCCL_DECL2(ncclResult_t, ncclBroadcast,
                (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                 ncclComm_t comm, cudaStream_t stream))
FAKE_NCCL_DECL2(ncclResult_t, ncclAllReduce,
                (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                 ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream))
FAKE_NCCL_DECL2(ncclResult_t, ncclReduceScatter,
                (const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,
                 ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream))
FAKE_NCCL_DECL2(ncclResult_t, ncclAllGather,
                (const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                 ncclComm_t comm, cudaStream_t stream))
FAKE_NCCL_DECL2(ncclResult_t, ncclAlltoAll,
                (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                 ncclComm_t comm, cudaStream_t stream))
FAKE_NCCL_DECL2(ncclResult_t, ncclGather,
                (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                 ncclComm_t comm, cudaStream_t stream))
FAKE_NCCL_DECL2(ncclResult_t, ncclScatter,
                (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                 ncclComm_t comm, cudaStream_t stream))
FAKE_NCCL_DECL2(ncclResult_t, ncclSend,
                (const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                 cudaStream_t stream))
FAKE_NCCL_DECL2(ncclResult_t, ncclRecv,
                (void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                 cudaStream_t stream))
FAKE_NCCL_DECL2(ncclResult_t, ncclGroupStart, (void))
FAKE_NCCL_DECL2(ncclResult_t, ncclGroupEnd, (void))

#undef FAKE_NCCL_DECL2

#ifdef __cplusplus
}
#endif

#endif /* FAKE_NCCL_FALLBACK_H_ */
