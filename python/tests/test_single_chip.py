"""Programs without a HOST orchestrator, in PyPTO's idiom: one runs on one
simulated chip through pto-run's single-chip path; one with two CHIP
orchestrations gives one sub-callable per orchestration
(``compiled["name"]``); ``prepare()`` gives a session whose calls run."""
import numpy as np
import pytest
import pypto.language as pl
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

M = 16
N = 64


@pl.program
class AddOne:
    @pl.function(type=pl.FunctionType.InCore)
    def add_one(self, a: pl.Tensor[[M, N], pl.FP32],
                out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        t = pl.add(pl.load(a, [0, 0], [M, N]), 1.0)
        return pl.store(t, [0, 0], out)


@pl.program
class AddSub:
    @pl.function(type=pl.FunctionType.InCore)
    def tile_add(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32],
                 f: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        t = pl.add(pl.load(a, [0, 0], [M, N]), pl.load(b, [0, 0], [M, N]))
        return pl.store(t, [0, 0], f)

    @pl.function(type=pl.FunctionType.InCore)
    def tile_sub(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32],
                 f: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        t = pl.sub(pl.load(a, [0, 0], [M, N]), pl.load(b, [0, 0], [M, N]))
        return pl.store(t, [0, 0], f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch_add(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32],
                 f: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        return self.tile_add(a, b, f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch_sub(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32],
                 f: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        return self.tile_sub(a, b, f)


def _inputs():
    a = np.arange(M * N, dtype=np.float32).reshape(M, N) % 7
    b = np.full((M, N), 2.0, dtype=np.float32)
    return a, b


def test_a_lone_kernel_runs_on_one_chip_whatever_the_device_count(test_config):
    compiled = ir.compile(AddOne, platform=test_config.platform,
                          distributed_config=DistributedConfig(device_ids=[0, 1, 2, 3]))
    assert compiled.param_names == ["a", "out"]
    a, _ = _inputs()
    out = np.zeros_like(a)
    result = compiled(a, out)
    np.testing.assert_array_equal(out, a + 1.0)
    assert result.dispatches_per_card == [1]
    assert result.sim_time_us > 0


def test_each_chip_orchestration_is_a_sub_callable(test_config, tmp_path):
    compiled = ir.compile(AddSub, str(tmp_path), platform=test_config.platform)
    assert compiled.orchestration_names == ["orch_add", "orch_sub"]
    add, sub = compiled["orch_add"], compiled.orch_sub
    assert (add.name, sub.name) == ("orch_add", "orch_sub")
    assert add.output_dir == tmp_path / "next_levels" / "orch_add"
    assert (add.output_dir / "program.cc").is_file()
    assert add.param_names == ["a", "b", "f"]
    a, b = _inputs()
    f = np.zeros_like(a)
    add(a, b, f)
    np.testing.assert_array_equal(f, a + b)
    sub(a, b, f)
    np.testing.assert_array_equal(f, a - b)
    with pytest.raises(TypeError, match="select one explicitly"):
        compiled(a, b, f)
    with pytest.raises(KeyError, match="orch_add, orch_sub"):
        compiled["orch_mul"]
    with pytest.raises(AttributeError, match="no attribute 'orch_mul'"):
        compiled.orch_mul  # noqa: B018


def test_prepare_gives_a_session_whose_calls_run(test_config):
    compiled = ir.compile(AddOne, platform=test_config.platform)
    a, _ = _inputs()
    out = np.zeros_like(a)
    with compiled.prepare() as session:
        session(a, out)
    np.testing.assert_array_equal(out, a + 1.0)
    # A persistent session would keep device state between calls; ours has none.
    with pytest.raises(NotImplementedError, match="persistent"):
        compiled.prepare(persistent=True)
