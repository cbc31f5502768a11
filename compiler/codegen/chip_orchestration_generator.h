// The generator of one chip orchestration's C++ (chip_orchestration.h),
// split by what it emits: chip_orchestration.cc the entry, statements, loops
// and bindings; chip_orchestration_tensor_ops.cc the orchestration-side
// tensor operators (view, slice, read, assemble) and index expressions;
// chip_orchestration_submit.cc the kernel and MIX task submissions, their
// deps and results; chip_orchestration_task_ids.cc the task-id values
// (task_invalid, task_dummy, Array[N, TASK_ID]). Private to compiler/codegen.
#ifndef PTO_COMPILER_CODEGEN_CHIP_ORCHESTRATION_GENERATOR_H_
#define PTO_COMPILER_CODEGEN_CHIP_ORCHESTRATION_GENERATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/codegen/chip_callees.h"
#include "compiler/codegen/cpp_emitter.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"
#include "compiler/ir/stmt.h"
#include "compiler/support/source.h"

namespace pto::codegen::chip_orch_internal {

// pto::rt::kMaxTensorDims: the dims a runtime tensor view carries.
inline constexpr int kMaxViewDims = 5;

// `"..."` with the characters C++ needs escaped.
std::string CppString(std::string_view s);

class Generator : public CppEmitter {
 public:
  Generator(const ir::ProgramPtr& program, std::string_view pipeline)
      : CppEmitter("a chip orchestration", "an inline expression operand",
                   {"orch", "args", "is_contiguous"}),
        program_(program),
        pipeline_(pipeline) {}

  absl::StatusOr<std::string> Run();

 private:
  // kTaskId: a pto::rt::TaskId; kTaskArray: a std::array of `extent` of them
  // (pl.Array[N, pl.TASK_ID]), copied on update as the IR's writes are
  // functional.
  enum class Kind { kTensor, kScalar, kTuple, kTaskId, kTaskArray };
  struct Value {
    Kind kind = Kind::kTensor;
    std::string name;             // kTensor, kScalar, kTaskId, kTaskArray
    std::vector<Value> elements;  // kTuple
    std::string task;             // the TaskOutputs that produced it, if any
    int64_t extent = 0;           // kTaskArray
    // A pl.tensor.create no task has written yet: its TensorCreateInfo (the
    // runtime allocates it at its first writer's submit) and the loop depth
    // it was created at.
    std::string create;
    size_t create_depth = 0;
  };

  // The C++ type of a variable holding `v`.
  std::string CppType(const Value& v);

  // The value bound to `e`; a located error for a pl.tensor.create no task
  // has written yet (AddCreatedOutput takes those).
  absl::StatusOr<Value> Lookup(const ir::ExprPtr& e);

  // chip_orchestration.cc: statements, loops, bindings.
  absl::Status EmitStmt(const ir::StmtPtr& stmt, int indent);
  absl::StatusOr<std::string> Bound(const ir::ExprPtr& e);
  absl::Status EmitLoop(const ir::ForStmt& loop, int indent);
  absl::Status EmitYield(const ir::YieldStmt& yield, int indent);
  absl::Status EmitAssign(const ir::AssignStmt& assign, int indent);

  // chip_orchestration_tensor_ops.cc.
  absl::StatusOr<std::vector<int64_t>> ConstInts(const ir::ExprPtr& e, std::string_view what);
  absl::StatusOr<std::string> IndexExpr(const ir::ExprPtr& e);
  absl::StatusOr<std::vector<ir::ExprPtr>> ListItems(const ir::ExprPtr& e, std::string_view what);
  absl::StatusOr<Value> EmitSlice(const ir::Call& call, std::string_view hint, int indent);
  absl::StatusOr<Value> EmitRead(const ir::Call& call, std::string_view hint, int indent);
  absl::StatusOr<std::vector<int64_t>> StaticShape(const ir::ExprPtr& e);
  absl::StatusOr<Value> EmitView(const ir::Call& call, std::string_view hint, int indent);
  absl::StatusOr<Value> EmitAssemble(const ir::Call& call, int indent);
  absl::StatusOr<Value> EmitCreate(const ir::Call& call, std::string_view hint);

  // chip_orchestration_submit.cc.
  absl::StatusOr<std::string> MatchParamRank(const std::string& name, const ir::ExprPtr& arg,
                                             const ir::Var& param, const Span& at, int indent);
  static std::string_view SubmitFunction(const ir::Function& callee);
  std::pair<std::string, std::string> KernelIds(const std::optional<MixMembers>& mix,
                                                const std::string& callee) const;
  absl::StatusOr<Value> EmitSubmit(const ir::Call& call, int indent);
  absl::StatusOr<bool> AddCreatedOutput(const ir::ExprPtr& arg, const ir::Var& param,
                                        const Span& at, const std::vector<Value>& passed,
                                        Value* out, std::vector<std::string>* adds);
  absl::StatusOr<Value> CallValue(const ir::Call& call, const ir::FunctionPtr& callee,
                                  const std::optional<MixMembers>& mix, const std::string& task,
                                  const std::vector<Value>& passed,
                                  const std::map<int, int>& output_index, int indent);
  absl::Status EmitDeps(const ir::Call& call, std::string_view key, const std::string& args,
                        int indent);
  static void CollectSources(const ir::StmtPtr& stmt,
                             std::map<const ir::Var*, ir::ExprPtr>* sources);
  static std::shared_ptr<const ir::ReturnStmt> FinalReturn(const ir::StmtPtr& body);
  absl::StatusOr<std::string> CreateInfo(const ir::TypePtr& type, const Span& span);

  // chip_orchestration_task_ids.cc.
  static bool IsTaskIdOp(ir::OpId id);
  absl::StatusOr<std::string> ArrayIndex(const ir::ExprPtr& index, const Value& array, int indent);
  absl::StatusOr<Value> EmitTaskIdOp(const ir::Call& call, std::string_view hint, int indent);

  const ir::ProgramPtr& program_;
  std::string pipeline_;
  std::map<std::string, int> func_ids_;
  std::map<const ir::Var*, Value> values_;
  // Per open loop, the carry variable of each iter_arg ("" = trivial alias).
  std::vector<std::vector<std::string>> loops_;
  int next_task_ = 0;
  bool needs_contiguity_ = false;
  bool needs_string_ = false;
  bool needs_array_ = false;
};

}  // namespace pto::codegen::chip_orch_internal

#endif  // PTO_COMPILER_CODEGEN_CHIP_ORCHESTRATION_GENERATOR_H_
