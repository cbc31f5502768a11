#include "compiler/passes/ir_property.h"

namespace pto::passes {

std::string_view IRPropertyName(IRProperty p) {
  switch (p) {
    case IRProperty::kSplitIncoreOrch: return "SplitIncoreOrch";
    case IRProperty::kCallDirectionsResolved: return "CallDirectionsResolved";
    case IRProperty::kNoNestedCalls: return "NoNestedCalls";
    case IRProperty::kNormalizedStmtStructure: return "NormalizedStmtStructure";
    case IRProperty::kSSAForm: return "SSAForm";
    case IRProperty::kHasMemRefs: return "HasMemRefs";
    case IRProperty::kReturnParamsExplicit: return "ReturnParamsExplicit";
    case IRProperty::kManualDepsOnSubmitOnly: return "ManualDepsOnSubmitOnly";
    case IRProperty::kRuntimeScopesMaterialized: return "RuntimeScopesMaterialized";
    case IRProperty::kIterArgCarryClassified: return "IterArgCarryClassified";
    case IRProperty::kCommDomainScopesMaterialized: return "CommDomainScopesMaterialized";
    case IRProperty::kDistTensorCtxMaterialized: return "DistTensorCtxMaterialized";
    case IRProperty::kIncoreTileOps: return "IncoreTileOps";
    case IRProperty::kTileOps2D: return "TileOps2D";
    case IRProperty::kTileMemoryInferred: return "TileMemoryInferred";
    case IRProperty::kInlineFunctionsEliminated: return "InlineFunctionsEliminated";
    case IRProperty::kUnrollResolved: return "UnrollResolved";
    case IRProperty::kStructuredCtrlFlow: return "StructuredCtrlFlow";
    case IRProperty::kHierarchyOutlined: return "HierarchyOutlined";
    case IRProperty::kOrchestrationReferencesResolved: return "OrchestrationReferencesResolved";
    case IRProperty::kClusterOutlined: return "ClusterOutlined";
    case IRProperty::kAllocatedMemoryAddr: return "AllocatedMemoryAddr";
    case IRProperty::kTensorViewCanonical: return "TensorViewCanonical";
    case IRProperty::kMixedKernelExpanded: return "MixedKernelExpanded";
    case IRProperty::kCount: break;
  }
  return "?";
}

std::string IRPropertySet::ToString() const {
  std::string s;
  for (int i = 0; i < static_cast<int>(IRProperty::kCount); ++i) {
    if (!bits_.test(i)) continue;
    if (!s.empty()) s += ", ";
    s += IRPropertyName(static_cast<IRProperty>(i));
  }
  return s;
}

}  // namespace pto::passes
