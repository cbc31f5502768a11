"""InCore point-to-point in PyPTO's idiom: the whole-window
``pld.tensor.put(dst, peer=, src=)`` forms, plain and ``atomic=Add``, on the
simulator, checked against values computed here."""
import numpy as np
import pypto.language as pl
import pypto.language.distributed as pld
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

ROWS = 4
COLS = 32
NR = pl.dynamic("NR")


@pl.program
class SumIntoRankZero:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
             mine: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
             total: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
             done: pld.DistributedTensor[[1, 1], pl.INT32]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        ctx = pld.get_comm_ctx(total)
        me = pld.rank(ctx)
        mine = pl.store(pl.load(x, [0, 0], [ROWS, COLS]), [0, 0], mine)
        pld.tensor.put(total, peer=0, src=mine, atomic=pld.AtomicType.Add)
        pld.system.notify(target=done, peer=0, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        if me == 0:
            pld.system.wait(signal=done, offsets=[0, 0], expected=pld.nranks(ctx),
                            cmp=pld.WaitCmp.Ge)
            return pl.store(pl.load(total, [0, 0], [ROWS, COLS]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
             mine: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
             total: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
             done: pld.DistributedTensor[[1, 1], pl.INT32]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        return self.step(x, y, mine, total, done)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[NR, ROWS, COLS], pl.FP32],
             y: pl.Out[pl.Tensor[[NR, ROWS, COLS], pl.FP32]]) -> pl.Tensor[[NR, ROWS, COLS], pl.FP32]:
        mine_buf = pld.alloc_window_buffer(ROWS * COLS * pl.FP32.get_byte())
        total_buf = pld.alloc_window_buffer(ROWS * COLS * pl.FP32.get_byte())
        done_buf = pld.alloc_window_buffer(pl.INT32.get_byte())
        for r in pl.range(pld.world_size()):
            mine = pld.window(mine_buf, [ROWS, COLS], dtype=pl.FP32)
            total = pld.window(total_buf, [ROWS, COLS], dtype=pl.FP32)
            done = pld.window(done_buf, [1, 1], dtype=pl.INT32)
            self.chip(x[r], y[r], mine, total, done, device=r)
        return y


def test_atomic_put_of_every_rank_sums_into_rank_zero(test_config):
    n = 4
    compiled = ir.compile(SumIntoRankZero, platform=test_config.platform,
                          distributed_config=DistributedConfig(device_ids=list(range(n))))
    x = np.stack([np.arange(ROWS * COLS, dtype=np.float32).reshape(ROWS, COLS) % 9 + 10 * r
                  for r in range(n)])
    y = np.zeros_like(x)
    result = compiled(x, y)
    # Small integers in FP32: the sum is exact in any order.
    np.testing.assert_array_equal(y[0], x.sum(axis=0))
    np.testing.assert_array_equal(y[1:], 0)
    assert result.sim_time_us > 0
