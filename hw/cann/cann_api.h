// The CANN API as hw/ sees it: the toolkit's headers with --config=ascend
// (PTO_HW_REAL_CANN, @cann), else declared_api.h, which only declares what
// we call so CI can compile hw/ (a compile check; nothing runs).
#ifndef PTO_HW_CANN_CANN_API_H_
#define PTO_HW_CANN_CANN_API_H_

#if defined(PTO_HW_REAL_CANN)
#include "acl/acl.h"
#include "hccl/hccl.h"
#include "runtime/rt.h"
#else
#include "hw/cann/declared_api.h"
#endif

#endif  // PTO_HW_CANN_CANN_API_H_
