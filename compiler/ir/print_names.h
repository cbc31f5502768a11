// The printed name of every variable of a function, chosen so that the text
// re-parses to the same bindings (private to compiler/ir:printer).
#ifndef PTO_COMPILER_IR_PRINT_NAMES_H_
#define PTO_COMPILER_IR_PRINT_NAMES_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/function.h"

namespace pto::ir::print_internal {

// Variables absent from the map print under their hint.
using PrintedNames = absl::flat_hash_map<const Var*, std::string>;

// A value reuses its hint unless an earlier value printed under that name is
// still used while the new one is visible; statements are numbered in print
// order, which the printer mirrors exactly.
PrintedNames AssignPrintedNames(const FunctionPtr& f);

}  // namespace pto::ir::print_internal

#endif  // PTO_COMPILER_IR_PRINT_NAMES_H_
