// The call of one collective as collective_host.pto.in (HOST rail) or
// collective_incore.pto.in (InCore rail) writes it, from its CollectiveDef,
// for run_collective.sh: prints shell assignments
//   HOST:   call='<the call>'  fill=stage|data  signal=lanes|ring|nr1|rank1
//   InCore: incall='<the call>'  instage=0|1  done=<var>  signal=ring|nr1
// (fill: the window staged before the call; instage: whether the kernel
// stages the target before the call; done: the variable the kernel copies
// out; signal: the layout the rail checks, docs/collectives.md).
//
// Usage: collective_call COLLECTIVE OP ROOT CORE_NUM [host|incore]
//        (COLLECTIVE: a builtin name)
#include <cstdlib>
#include <iostream>
#include <string>

#include "compiler/ops/collective_def.h"

namespace {

namespace ops = ::pto::ops;

std::string SignalLayout(const ops::CollectiveDef& def) {
  if (def.ring_signal) return "ring";
  if (TakesCoreNum(def.launch_width) && def.wider_signal) return "lanes";
  return def.InputArg() ? "nr1" : "rank1";
}

void PrintHost(const ops::CollectiveDef& def, ops::CallSpelling spell) {
  spell.operand = [](const ops::CollectiveOperand& o) -> std::string {
    if (o.role == "target") return "data";
    if (o.role == "input") return o.row ? "row0" : "stage";
    return std::string(o.role);
  };
  std::cout << "call='" << ops::CollectiveCallText(def, ops::CollectiveRail::kHost, spell)
            << "' fill=" << (def.InputArg() ? "stage" : "data")
            << " signal=" << SignalLayout(def) << "\n";
}

// The kernel stages its input rows into the target window before the call
// unless the collective reads a separate input (peers then put into the
// target from the start, and staging it would race with them).
void PrintInCore(const ops::CollectiveDef& def, ops::CallSpelling spell) {
  const bool instage = !def.InputArg();
  spell.operand = [instage](const ops::CollectiveOperand& o) -> std::string {
    if (o.role == "target") return instage ? "staged" : "data";
    if (o.role == "input") return o.row ? "row0" : "inp";
    return std::string(o.role);
  };
  // A collective whose result is its signal (barrier) binds nothing; the
  // kernel copies out what it staged.
  const bool data_result = def.alias_arg != def.signal_arg;
  spell.result = data_result ? "done" : "";
  std::cout << "incall='" << ops::CollectiveCallText(def, ops::CollectiveRail::kInCore, spell)
            << "' instage=" << (instage ? 1 : 0) << " done=" << (data_result ? "done" : "staged")
            << " signal=" << (def.ring_signal ? "ring" : "nr1") << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string rail = argc == 6 ? argv[5] : "host";
  if ((argc != 5 && argc != 6) || (rail != "host" && rail != "incore")) {
    std::cerr << "usage: collective_call COLLECTIVE OP ROOT CORE_NUM [host|incore]\n";
    return 2;
  }
  const ops::CollectiveRail r =
      rail == "host" ? ops::CollectiveRail::kHost : ops::CollectiveRail::kInCore;
  const ops::CollectiveDef* def = ops::FindCollectiveByBuiltin(argv[1]);
  if (def == nullptr || !def->OnRail(r)) {
    std::cerr << "unknown collective " << argv[1] << " on the " << ops::CollectiveRailName(r)
              << " rail\n";
    return 2;
  }
  ops::CallSpelling spell;
  spell.op = std::atoll(argv[2]);
  spell.root = std::atoll(argv[3]);
  spell.core_num = std::atoll(argv[4]);
  if (r == ops::CollectiveRail::kHost) {
    PrintHost(*def, spell);
  } else {
    PrintInCore(*def, spell);
  }
  return 0;
}
