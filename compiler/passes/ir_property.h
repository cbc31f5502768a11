// IR properties that passes require, produce and invalidate (spec §1.9).
#ifndef PTO_COMPILER_PASSES_IR_PROPERTY_H_
#define PTO_COMPILER_PASSES_IR_PROPERTY_H_

#include <bitset>
#include <initializer_list>
#include <string>
#include <string_view>

namespace pto::passes {

enum class IRProperty : int {
  kSplitIncoreOrch,
  kCallDirectionsResolved,
  kNoNestedCalls,
  kNormalizedStmtStructure,
  kSSAForm,
  kHasMemRefs,
  kReturnParamsExplicit,
  kManualDepsOnSubmitOnly,
  kRuntimeScopesMaterialized,
  kIterArgCarryClassified,
  kCommDomainScopesMaterialized,
  kDistTensorCtxMaterialized,
  kIncoreTileOps,
  kTileOps2D,
  kTileMemoryInferred,
  kInlineFunctionsEliminated,
  kUnrollResolved,
  kStructuredCtrlFlow,
  kHierarchyOutlined,
  kOrchestrationReferencesResolved,
  kClusterOutlined,
  kAllocatedMemoryAddr,
  kTensorViewCanonical,
  kMixedKernelExpanded,
  kCount,  // keep last; at most 64
};

std::string_view IRPropertyName(IRProperty p);

class IRPropertySet {
 public:
  IRPropertySet() = default;
  IRPropertySet(std::initializer_list<IRProperty> props) {
    for (IRProperty p : props) Insert(p);
  }
  void Insert(IRProperty p) { bits_.set(static_cast<int>(p)); }
  void Remove(IRProperty p) { bits_.reset(static_cast<int>(p)); }
  bool Contains(IRProperty p) const { return bits_.test(static_cast<int>(p)); }
  bool empty() const { return bits_.none(); }
  IRPropertySet& operator|=(const IRPropertySet& o) {
    bits_ |= o.bits_;
    return *this;
  }
  // Properties of *this missing from `have`.
  IRPropertySet Missing(const IRPropertySet& have) const {
    IRPropertySet r;
    r.bits_ = bits_ & ~have.bits_;
    return r;
  }
  IRPropertySet Without(const IRPropertySet& o) const {
    IRPropertySet r;
    r.bits_ = bits_ & ~o.bits_;
    return r;
  }
  bool operator==(const IRPropertySet& o) const { return bits_ == o.bits_; }
  // Comma-separated names, in enum order.
  std::string ToString() const;

 private:
  std::bitset<64> bits_;
};

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_IR_PROPERTY_H_
