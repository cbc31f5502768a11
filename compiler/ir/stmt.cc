#include "compiler/ir/stmt.h"

#include "compiler/ir/arena.h"

namespace pto::ir {
namespace {

void FlattenInto(const StmtPtr& s, std::vector<StmtPtr>* out) {
  if (auto seq = As<SeqStmts>(s)) {
    for (const StmtPtr& c : seq->stmts()) FlattenInto(c, out);
  } else if (s != nullptr) {
    out->push_back(s);
  }
}

}  // namespace

StmtPtr SeqStmts::Flatten(const std::vector<StmtPtr>& stmts, Span span) {
  std::vector<StmtPtr> flat;
  for (const StmtPtr& s : stmts) FlattenInto(s, &flat);
  if (flat.size() == 1) return flat[0];
  return MakeNode<SeqStmts>(std::move(flat), std::move(span));
}

}  // namespace pto::ir
