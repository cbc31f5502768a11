#include "runtime/device/pipe_core.h"

#include "runtime/device/device_core.h"

namespace pto {

PipeCore* CurrentPipeCore() {
  DeviceCore* c = CurrentCore();
  PipeCore* p = dynamic_cast<PipeCore*>(c);
  if (p == nullptr) c->Fault("TPUSH/TPOP on a core without cross-core pipes");
  return p;
}

}  // namespace pto
