// The HOST-rail call of one collective as collective_host.pto.in writes it,
// from its CollectiveDef, for run_collective.sh: prints shell assignments
//   call='<the call>'  fill=stage|data  signal=lanes|ring|nr1|rank1
// (fill: the window staged before the call; signal: the layout its entry
// checks, docs/collectives.md).
//
// Usage: collective_call COLLECTIVE OP ROOT CORE_NUM   (COLLECTIVE: a builtin name)
#include <cstdlib>
#include <iostream>
#include <string>

#include "compiler/ops/collective_def.h"

namespace {

namespace ops = ::pto::ops;

// Whether the def reads a separate input window besides its target.
bool HasStage(const ops::CollectiveDef& def) {
  for (size_t i = 0; i < def.operands.size(); ++i) {
    if (i != def.alias_arg && i != def.signal_arg && !def.IsCountArg(i) &&
        def.operands[i].use == ops::OperandUse::kRead) {
      return true;
    }
  }
  return false;
}

std::string SignalLayout(const ops::CollectiveDef& def) {
  if (def.ring_signal) return "ring";
  if (TakesCoreNum(def.launch_width) && def.wider_signal) return "lanes";
  return HasStage(def) ? "nr1" : "rank1";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: collective_call COLLECTIVE OP ROOT CORE_NUM\n";
    return 2;
  }
  const ops::CollectiveDef* def = ops::FindCollectiveByBuiltin(argv[1]);
  if (def == nullptr || !def->OnRail(ops::CollectiveRail::kHost)) {
    std::cerr << "unknown collective " << argv[1] << "\n";
    return 2;
  }
  ops::CallSpelling spell;
  spell.operand = [](const ops::CollectiveOperand& o) -> std::string {
    if (o.role == "target") return "data";
    if (o.role == "input") return o.row ? "row0" : "stage";
    return std::string(o.role);
  };
  spell.op = std::atoll(argv[2]);
  spell.root = std::atoll(argv[3]);
  spell.core_num = std::atoll(argv[4]);
  std::cout << "call='" << ops::CollectiveCallText(*def, ops::CollectiveRail::kHost, spell)
            << "' fill=" << (HasStage(*def) ? "stage" : "data")
            << " signal=" << SignalLayout(*def) << "\n";
  return 0;
}
