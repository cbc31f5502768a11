// The conversions one `pto.tcvt` instruction performs on each architecture,
// transcribed from the "Supported Conversions" of pto-isa's tcvt (as listed
// per architecture in PyPTO's docs/en/dev/passes/14-legalize_tile_cast.md).
// A platform names its architecture (`arch` in platforms/*.textproto, read
// into Target::arch); LegalizeTileCast looks the table up by it.
#ifndef PTO_COMPILER_PASSES_TCVT_TABLE_H_
#define PTO_COMPILER_PASSES_TCVT_TABLE_H_

#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir/dtype.h"

namespace pto::passes {

struct TcvtTable {
  std::string_view arch;  // named in diagnostics, e.g. "Ascend910B"
  std::vector<std::pair<ir::DataType, ir::DataType>> native;  // (from, to)
  bool IsNative(ir::DataType from, ir::DataType to) const;
};

// The table of architecture `arch` (Target::arch, e.g. "Ascend910B"), or
// nullptr for an empty or unknown one.
const TcvtTable* TcvtTableForArch(std::string_view arch);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_TCVT_TABLE_H_
