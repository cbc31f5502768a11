// THE PART OF THE CANN API THAT hw/ CALLS, DECLARED ONLY. A COMPILE CHECK:
// CI compiles every hw/ source against these declarations so the code stays
// type-correct against the documented signatures. Nothing here is defined,
// nothing links against it, and nothing runs: it is no stand-in for a
// device or for CANN. With --config=ascend, hw/cann/cann_api.h includes the
// toolkit's own headers instead (docs/hw.md).
//
// Each declaration follows the public header or page named beside it:
//   [acl_rt]  hicann/runtime: include/external/acl/acl_rt.h (AscendCL runtime;
//             one page per call under docs/api_docs/<name>.md)
//   [acl]     hicann/runtime: include/external/acl/acl.h, acl_base.h
//   [rt_kern] hicann/runtime: pkg_inc/runtime/rt_external_kernel.h,
//             pkg_inc/runtime/runtime/kernel.h (the low-level rt* kernel calls)
//   [rt_base] hicann/runtime: pkg_inc/runtime/rt_external_base.h
//   [hccl]    CANN HCCL: hccl/hccl.h and hccl/hccl_types.h (as mirrored in
//             Ascend/pytorch: third_party/hccl/inc/hccl/)
// Enumerators keep the documented numeric values; only those we use appear.
#ifndef PTO_HW_CANN_DECLARED_API_H_
#define PTO_HW_CANN_DECLARED_API_H_

#include <cstddef>
#include <cstdint>

extern "C" {

// ---- types --------------------------------------------------------------

typedef int aclError;                       // [acl] acl_base.h
typedef void* aclrtStream;                  // [acl] acl_base.h
typedef void* aclrtEvent;                   // [acl] acl_base.h
typedef void* aclrtDrvMemHandle;            // [acl_rt]
typedef int32_t rtError_t;                  // [rt_base]
typedef void* rtStream_t;                   // [rt_base]

typedef enum aclrtMemcpyKind {              // [acl_rt] (0 .. 3 in order)
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {         // [acl_rt]
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
} aclrtMemMallocPolicy;

typedef enum aclrtMemAttr {                 // [acl_rt] (the 5th enumerator)
  ACL_HBM_MEM_HUGE = 4,
} aclrtMemAttr;

typedef enum aclrtMemLocationType {         // [acl_rt]
  ACL_MEM_LOCATION_TYPE_DEVICE = 1,
} aclrtMemLocationType;

typedef struct aclrtMemLocation {           // [acl_rt]
  uint32_t id;
  aclrtMemLocationType type;
} aclrtMemLocation;

typedef enum aclrtMemAllocationType {       // [acl_rt]
  ACL_MEM_ALLOCATION_TYPE_PINNED = 0,
} aclrtMemAllocationType;

typedef enum aclrtMemHandleType {           // [acl_rt]
  ACL_MEM_HANDLE_TYPE_NONE = 0,
} aclrtMemHandleType;

typedef struct aclrtPhysicalMemProp {       // [acl_rt]
  aclrtMemHandleType handleType;
  aclrtMemAllocationType allocationType;
  aclrtMemAttr memAttr;
  aclrtMemLocation location;
  uint64_t reserve;
} aclrtPhysicalMemProp;

typedef enum aclrtMemGranularityOptions {   // [acl_rt]
  ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM = 0,
  ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED = 1,
} aclrtMemGranularityOptions;

typedef struct tagRtDevBinary {             // [rt_kern] rtDevBinary_t
  uint32_t magic;
  uint32_t version;
  const void* data;
  uint64_t length;
} rtDevBinary_t;

typedef struct tagRtHostInputInfo rtHostInputInfo_t;  // [rt_kern], opaque here

typedef struct tagRtArgsEx {                // [rt_kern] rtArgsEx_t
  void* args;
  rtHostInputInfo_t* hostInputInfoPtr;
  uint32_t argsSize;
  uint32_t tilingAddrOffset;
  uint32_t tilingDataOffset;
  uint16_t hostInputInfoNum;
  uint8_t hasTiling;
  uint8_t isNoNeedH2DCopy;
  uint8_t reserved[4];
} rtArgsEx_t;

typedef struct tagRtSmDesc rtSmDesc_t;      // [rt_kern], always passed as null

typedef struct tagRtTaskCfgInfo {           // [rt_base] rtTaskCfgInfo_t
  uint8_t qos;
  uint8_t partId;
  uint8_t schemMode;
  bool d2dCrossFlag;
  uint32_t blockDimOffset;
  uint8_t dumpflag;
  uint8_t neverTimeout;
  uint8_t enableProfiling;
  uint8_t rev;
  uint32_t localMemorySize;
} rtTaskCfgInfo_t;

// [rt_kern]: the magics of AICore ELFs: an AIV (vector core) kernel, an AIC
// (cube core) kernel, and a plain AICore ELF, which on CV-separated chips
// (a2a3, a5) registers as a MIX kernel (its "_mix_aic" / "_mix_aiv" entries;
// hicann/runtime src/runtime/feature/src/runtime.cc Magic2KernelAttrType).
#define RT_DEV_BINARY_MAGIC_ELF_AIVEC 0x41415246U
#define RT_DEV_BINARY_MAGIC_ELF_AICUBE 0x41494343U
#define RT_DEV_BINARY_MAGIC_ELF 0x43554245U

typedef enum {                              // [hccl] hccl_types.h HcclResult
  HCCL_SUCCESS = 0,
} HcclResult;
typedef void* HcclComm;                     // [hccl]
typedef struct HcclRootInfoDef {            // [hccl] HCCL_ROOT_INFO_BYTES = 4108
  char internal[4108];
} HcclRootInfo;

// ---- device, streams, memory: [acl], [acl_rt] ------------------------------

aclError aclInit(const char* configPath);
aclError aclFinalize();
aclError aclrtGetDeviceCount(uint32_t* count);
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtCreateStream(aclrtStream* stream);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void* devPtr);
aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind);
aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count);

// ---- events: [acl_rt] (docs/api_docs/aclrtCreateEvent.md, aclrtRecordEvent.md,
// aclrtSynchronizeEventWithTimeout.md: timeout in ms, -1 = forever;
// aclrtEventElapsedTime.md: ms between two recorded events) -----------------

aclError aclrtCreateEvent(aclrtEvent* event);
aclError aclrtDestroyEvent(aclrtEvent event);
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);
aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent);

// ---- VMM windows and peer access: [acl_rt] ---------------------------------

aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp* prop,
                                          aclrtMemGranularityOptions option, size_t* granularity);
aclError aclrtMallocPhysical(aclrtDrvMemHandle* handle, size_t size,
                             const aclrtPhysicalMemProp* prop, uint64_t flags);
aclError aclrtFreePhysical(aclrtDrvMemHandle handle);
aclError aclrtReserveMemAddress(void** virPtr, size_t size, size_t alignment, void* expectPtr,
                                uint64_t flags);
aclError aclrtReleaseMemAddress(void* virPtr);
aclError aclrtMapMem(void* virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                     uint64_t flags);
aclError aclrtUnmapMem(void* virPtr);
aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                         uint64_t flags, uint64_t* shareableHandle);
aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                           aclrtDrvMemHandle* handle);
aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);

// ---- AICore kernels: [rt_kern] ----------------------------------------------

rtError_t rtRegisterAllKernel(const rtDevBinary_t* bin, void** hdl);
rtError_t rtKernelLaunchWithHandleV2(void* hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                     rtArgsEx_t* argsInfo, rtSmDesc_t* smDesc, rtStream_t stm,
                                     const rtTaskCfgInfo_t* cfgInfo);

// ---- HCCL, bootstrap only: [hccl] --------------------------------------------

HcclResult HcclGetRootInfo(HcclRootInfo* rootInfo);
HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                                HcclComm* comm);
HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);
HcclResult HcclCommDestroy(HcclComm comm);

}  // extern "C"

#endif  // PTO_HW_CANN_DECLARED_API_H_
