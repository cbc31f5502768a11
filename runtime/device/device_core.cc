#include "runtime/device/device_core.h"

namespace pto {
namespace {
// The sim runs every core as a coroutine of one OS thread and switches the
// current core on every context switch, so a plain global is enough there; it
// is thread_local so OS-threaded backends work too.
thread_local DeviceCore* current_core = nullptr;
}  // namespace

DeviceCore* CurrentCore() { return current_core; }
void SetCurrentCore(DeviceCore* core) { current_core = core; }

}  // namespace pto
