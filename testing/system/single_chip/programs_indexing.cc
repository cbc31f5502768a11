#include "testing/system/single_chip/golden.h"
#include "testing/system/single_chip/ref.h"

namespace pto::single_chip {

void AddIndexing(Registry& r) {}

}  // namespace pto::single_chip
