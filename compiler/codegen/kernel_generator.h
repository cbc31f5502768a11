// The generator of one kernel's C++ (kernel_codegen.h), split by what it
// emits: kernel_codegen.cc the params, scalar expressions, statements and
// control flow; kernel_tile_ops.cc the tile and GM operators;
// kernel_comm_ops.cc the InCore collective primitives (signals, put/get,
// remote loads). Private to compiler/codegen.
#ifndef PTO_COMPILER_CODEGEN_KERNEL_GENERATOR_H_
#define PTO_COMPILER_CODEGEN_KERNEL_GENERATOR_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"
#include "compiler/ir/stmt.h"
#include "compiler/codegen/cpp_emitter.h"
#include "compiler/codegen/kernel_op_table.h"
#include "compiler/ir/type.h"
#include "compiler/support/source.h"

namespace pto::codegen::kernel_internal {

class Generator : public CppEmitter {
 public:
  Generator(const ir::ProgramPtr& program, std::string_view function)
      : CppEmitter("a kernel", "an inline tensor or tile operand", {"args"}),
        program_(program),
        function_(function) {}

  absl::StatusOr<std::string> Run();

 private:
  enum class Kind { kScalar, kTensor, kTile, kCtx };
  struct Value {
    Kind kind;
    std::string name;
    ir::DataType dtype;
    // For a window tensor: the C++ name of its CommContext pointer, if known.
    std::string ctx;
  };

  absl::StatusOr<std::string> ElemType(ir::DataType t, const Span& span);

  std::string MaybeUnused(const ir::VarPtr& v) const;

  // A C++ identifier from `hint`, unique in the kernel (`args` is the
  // kernel's parameter, so a variable named args becomes args_).
  std::string Fresh(std::string_view hint) {
    return CppEmitter::Fresh(hint == "args" ? std::string_view("args_") : hint);
  }

  absl::StatusOr<Value> Lookup(const ir::ExprPtr& e) { return LookupIn(values_, e); }

  absl::StatusOr<Value> LookupKind(const ir::ExprPtr& e, Kind kind, std::string_view what);

  // The C++ type of a variable of type `type`.
  absl::StatusOr<std::string> DeclType(const ir::TypePtr& type, const Span& span);

  absl::StatusOr<Kind> KindOf(const ir::TypePtr& type, const Span& span);

  static ir::DataType DTypeOf(const ir::TypePtr& type);

  // Binds `var` to a new C++ variable (`mut`: not const) and returns its
  // declaration prefix, e.g. "const int32_t x".
  absl::StatusOr<std::string> Declare(const ir::VarPtr& var, bool mut = false);

  // ---------------------------------------------------------------- exprs
  static std::optional<std::string> BinaryToken(ir::BinaryOp op);

  absl::StatusOr<std::string> Scalar(const ir::ExprPtr& e);

  // pl.tensor.read(t, idx) as a C++ expression.
  absl::StatusOr<std::string> ReadExpr(const ir::CallPtr& call);

  // `{a, b, ...}` of int64_t indices from a MakeTuple.
  absl::StatusOr<std::string> IndexList(const ir::ExprPtr& e);

  // The element count of a tile type with constant dims, and `{d0, d1, ...}`.
  absl::StatusOr<std::pair<int64_t, std::string>> TileShape(const ir::TypePtr& type,
                                                            const Span& span);

  // The GM box of a tile at `offsets`: the tile's dims, with leading 1s when
  // the offsets address a tensor of higher rank (PyPTO's `pl.store(row,
  // [0, j, 0], out)` of a [1, SIZE] row into a [1, NR, SIZE] tensor).
  absl::StatusOr<std::string> DynParam(const ir::DynDim& d, const Span& use);
  absl::StatusOr<std::string> BoxShape(const ir::TypePtr& type, const ir::ExprPtr& offsets,
                                       const Span& span);

  // The GM box of a load: its shape operand when that has the offsets' rank
  // (a tile FlattenTileNdTo2D flattened keeps its tensor-rank window), else
  // the tile's dims as for a store.
  absl::StatusOr<std::string> LoadBox(const ir::TypePtr& type, const ir::ExprPtr& offsets,
                                      const ir::ExprPtr& shape, const ir::ExprPtr& valid,
                                      const Span& span);
  absl::Status CheckRowsContiguous(const std::vector<ir::ExprPtr>& shape,
                                   const std::vector<ir::ExprPtr>& valid, const Span& span);
  // The tensor-rank GM box of a store FlattenTileNdTo2D gave `shapes`: the
  // valid box when the tile is partial.
  absl::StatusOr<std::string> StoreBox(const ir::TypePtr& type, const ir::ExprPtr& shapes,
                                       const Span& span);
  absl::StatusOr<std::string> ValidDim(const ir::ExprPtr& v, const Span& span);
  absl::StatusOr<bool> AtomicAdd(const ir::CallPtr& call, ir::DataType dtype);

  // `, pitch` for CopyBox when the tile has a valid_shape: its full innermost
  // dim, the UB distance between the box's rows.
  std::string ValidRowPitch(const ir::TypePtr& type);

  // ---------------------------------------------------------------- stmts

  // A tile-valued assignment: `var` at the UB address AllocateMemoryAddr
  // gave its MemRef.
  absl::StatusOr<std::string> NewTile(const ir::VarPtr& var, int indent);

  // `var = call`: the call's emitter family (kernel_op_table.h), or the
  // located "does not support <op> in a kernel yet".
  absl::Status EmitCallAssign(const ir::VarPtr& var, const ir::CallPtr& call, int indent);

  // One operator call being emitted.
  struct OpCall {
    const ir::VarPtr& var;
    const ir::CallPtr& call;
    const KernelOp& op;
    int indent;
  };
  // A tile of rank 1 or 2 as rows x cols with its valid box; `text` is the
  // `pto::Dims2{...}` argument.
  struct TileDims {
    int64_t rows = 0;
    int64_t cols = 0;
    std::string valid_rows;
    std::string valid_cols;
    bool partial = false;
    std::string text;
  };

  // GM and tile-memory families (kernel_tile_ops.cc).
  absl::Status EmitLoad(const OpCall& c);
  absl::Status EmitStore(const OpCall& c);
  absl::Status EmitRemoteLoadValue(const OpCall& c);
  absl::Status EmitTensorRead(const OpCall& c);
  absl::Status EmitTensorWrite(const OpCall& c);
  absl::Status EmitTensorReshape(const OpCall& c);
  absl::Status EmitTensorDim(const OpCall& c);
  absl::Status EmitCommInfo(const OpCall& c);
  absl::Status EmitBlockInfo(const OpCall& c);
  absl::Status EmitFull(const OpCall& c);
  absl::Status EmitMove(const OpCall& c);
  absl::Status EmitCast(const OpCall& c);

  // Vector families (kernel_vector_ops.cc).
  absl::StatusOr<TileDims> DimsOf(const ir::TypePtr& type, const Span& span);
  // `, pto::Dims2{R, C, R, C}` for a result tile of R > 1 rows of C, else
  // empty: the whole tile as its rows, so the backend costs each row.
  std::string RowsArg(const ir::TypePtr& type);
  absl::Status CheckFloatOnly(const OpCall& c, ir::DataType dtype);
  absl::Status IgnoreScratch(const OpCall& c, size_t from);
  absl::StatusOr<std::pair<std::string, std::string>> Offset2(const ir::ExprPtr& e,
                                                              const Span& span);
  absl::Status EmitUnary(const OpCall& c);
  absl::Status EmitComposite(const OpCall& c);
  absl::Status EmitBinary(const OpCall& c);
  absl::Status EmitScalarBinary(const OpCall& c);
  absl::Status EmitScalarForm(const OpCall& c, std::string_view api);
  absl::Status EmitReduce(const OpCall& c);
  absl::Status EmitArgReduce(const OpCall& c);
  absl::Status EmitExpand(const OpCall& c);
  absl::Status EmitFillPad(const OpCall& c);
  absl::Status EmitTranspose(const OpCall& c);
  absl::Status EmitSlice(const OpCall& c);
  absl::Status EmitAssemble(const OpCall& c);
  absl::Status EmitTileReshape(const OpCall& c);

  // ---------------------------------------------------------------- cube
  // An AIC kernel (aic_kernel.h): every call goes to the cube emitters
  // (kernel_cube_ops.cc).
  absl::Status EmitCubeCall(const ir::VarPtr& var, const ir::CallPtr& call, int indent);
  // `var` at the cube-buffer offset AllocateMemoryAddr gave its MemRef.
  absl::StatusOr<std::string> NewCubeTile(const ir::VarPtr& var, int indent);
  // The C++ view of `tensor` at `offsets` for TLOAD / TSTORE.
  absl::StatusOr<std::string> CubeGmView(const ir::ExprPtr& tensor, const ir::ExprPtr& offsets,
                                         const ir::ExprPtr& shapes, const Span& span);
  // pto::MatTile<elem> ... for a tile in a cube buffer; nullopt otherwise.
  static std::optional<std::string> CubeTileType(const ir::TypePtr& type,
                                                 const std::string& elem);

  // ---------------------------------------------------------------- pipes
  // The cross-core pipe operators of a mixed kernel's halves
  // (kernel_pipe_ops.cc); `var` is null for a statement without a result.
  static bool IsPipeOp(const ir::Call& call);
  absl::Status EmitPipeCall(const ir::VarPtr& var, const ir::CallPtr& call, int indent);
  absl::Status EmitSplitPipeCall(const ir::VarPtr& var, const ir::CallPtr& call, int64_t split,
                                 const std::string& pipe, int indent);
  absl::StatusOr<std::string> PipeName(const ir::Call& call, bool c2v);

  // ---------------------------------------------------------------- comm

  // A window operand of `call` whose communication context is known.
  absl::StatusOr<Value> WindowOperand(const ir::ExprPtr& e, const ir::CallPtr& call);

  // pld.system.notify: TNOTIFY into the peer's cell; pld.system.wait: TWAIT
  // on this rank's own cell.
  absl::Status EmitSignal(const ir::CallPtr& call, int indent);

  // put (dst_window, peer, src, stage, dst_offsets, src_offsets, shape
  // [, stage2]) and get (dst, peer, src_window, stage, ...): one TPUT/TGET
  // of the box through `stage` (a second staging tile only buys overlap).
  absl::Status EmitPutGet(const ir::CallPtr& call, int indent);

  // remote_load(tile, peer, window, offsets, shape): TLOAD of the peer's box.
  absl::Status EmitRemoteLoad(const ir::CallPtr& call, int indent);
  absl::Status EmitRemoteStore(const ir::CallPtr& call, int indent);

  absl::Status EmitWrite(const ir::CallPtr& call, const Value& t, int indent);

  // `var` names the same GM buffer (or UB tile) as `v`.
  absl::Status Alias(const ir::VarPtr& var, const Value& v, int indent);

  // `vars` = the yielded values, all at once. A window keeps the context it
  // was first given (MaterializeDistTensorCtx rejects a yield that changes it).
  absl::Status EmitAssignAll(const std::vector<const ir::Var*>& vars,
                             const std::vector<ir::ExprPtr>& values, const Span& span, int indent);

  // Any value: a bound variable, a scalar expression, or an op call (bound to
  // a temporary first).
  absl::StatusOr<Value> Operand(const ir::ExprPtr& e, int indent);

  absl::Status EmitStmt(const ir::StmtPtr& stmt, int indent);

  bool IsLastTopLevel(const ir::StmtPtr& stmt) const;

  // Mutable C++ variables for loop-carried values, set to their inits.
  absl::StatusOr<std::vector<const ir::Var*>> DeclareCarried(
      const std::vector<ir::IterArgPtr>& iter_args, int indent);

  // The loop's return vars take the final carried values.
  absl::Status BindLoopResults(const std::vector<const ir::Var*>& carried,
                               const std::vector<ir::VarPtr>& return_vars, const Span& span,
                               int indent);

  absl::Status EmitFor(const std::shared_ptr<const ir::ForStmt>& f, int indent);

  // `while (cond) { body }`: the condition reads the carried values, which
  // the body's yield updates for the next test.
  absl::Status EmitWhile(const std::shared_ptr<const ir::WhileStmt>& w, int indent);

  absl::Status EmitIf(const std::shared_ptr<const ir::IfStmt>& s, int indent);

  const ir::ProgramPtr& program_;
  std::string function_;
  std::set<const ir::Var*> used_;
  std::map<const ir::Var*, Value> values_;
  // Scalar params by their IR name: the values of pl.dynamic symbols.
  std::map<std::string, std::string> dyn_params_;
  std::vector<std::vector<const ir::Var*>> yield_targets_;
  std::vector<ir::VarPtr> temps_;  // keeps the temporaries' keys alive
  ir::StmtPtr top_body_;
  int64_t ub_bytes_ = 0;
  bool aic_ = false;
  // The pipes initialize_pipe declared, by (PyPTO pipe id, C2V).
  std::map<std::pair<int64_t, bool>, std::string> pipes_;
  bool uses_pipes_ = false;
  // An AIC or AIV half of a mixed kernel: the only kernels with pipes.
  bool mix_half_ = false;
  // A half of a MIX task on both AIV lanes (SplitVectorKernel, pass 23): the
  // AIC also hands each slot to lane 1, through these pipes (lane=1).
  bool dual_aiv_ = false;
  std::map<std::pair<int64_t, bool>, std::string> lane1_pipes_;
};

}  // namespace pto::codegen::kernel_internal

#endif  // PTO_COMPILER_CODEGEN_KERNEL_GENERATOR_H_
