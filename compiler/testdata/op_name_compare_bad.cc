// Each line below is one kind of operator-name match the scan rejects.
bool a = call->op()->name() == "pl.tile.store";
bool b = "pld.tensor.put" != op;
bool c = IsOp(c, "pl.tensor.view");
bool d = op.rfind("builtin.tensor.", 0) == 0;
static const char* const kSet[] = {"pl.tile.add", "pl.tile.sub"};
// A comment naming "pl.tile.load" is not a match.
auto e = Unsupported(span, "a pl.tile.load of this form");
bool f = id == ir::OpId::kPlTileStore;
