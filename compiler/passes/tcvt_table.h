// The conversions one `pto.tcvt` instruction performs on each built-in
// platform, transcribed from the "Supported Conversions" of pto-isa's tcvt
// (as listed per architecture in PyPTO's docs/en/dev/passes/
// 14-legalize_tile_cast.md): Ascend910B for a2a3, a2a3_cluster and a3,
// Ascend950 for a5 and a5_supernode. LegalizeTileCast reads it; a platform
// added without a row here fails tcvt_table_test.
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

// The table of built-in platform `platform`, or nullptr for an unknown one.
const TcvtTable* TcvtTableForPlatform(std::string_view platform);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_TCVT_TABLE_H_
