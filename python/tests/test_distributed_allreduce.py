"""A HOST-rail allreduce on 2 and 4 simulated chips, written as PyPTO's
distributed tests are: a @pl.program, ir.compile with a DistributedConfig,
a call with host tensors whose rows are the ranks' data."""
import pathlib
import runpy

import numpy as np
import pytest
import pypto.language as pl
import pypto.language.distributed as pld
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

COLS = 128
WORLD = pl.dynamic("WORLD")


@pl.program
class ScaledMaxReduce:
    @pl.function(type=pl.FunctionType.InCore)
    def scale_into_window(
        self,
        row: pl.Tensor[[1, COLS], pl.FP32],
        win: pl.InOut[pld.DistributedTensor[[1, COLS], pl.FP32]],
    ) -> pld.DistributedTensor[[1, COLS], pl.FP32]:
        t = pl.mul(pl.load(row, [0, 0], [1, COLS]), 2.0)
        return pl.store(t, [0, 0], win)

    @pl.function(type=pl.FunctionType.Orchestration)
    def stage(
        self,
        row: pl.Tensor[[1, COLS], pl.FP32],
        win: pl.InOut[pld.DistributedTensor[[1, COLS], pl.FP32]],
    ) -> pld.DistributedTensor[[1, COLS], pl.FP32]:
        return self.scale_into_window(row, win)

    @pl.function(type=pl.FunctionType.InCore)
    def copy_out(
        self,
        win: pld.DistributedTensor[[1, COLS], pl.FP32],
        res: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
    ) -> pl.Tensor[[1, COLS], pl.FP32]:
        return pl.store(pl.load(win, [0, 0], [1, COLS]), [0, 0], res)

    @pl.function(type=pl.FunctionType.Orchestration)
    def drain(
        self,
        win: pld.DistributedTensor[[1, COLS], pl.FP32],
        res: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
    ) -> pl.Tensor[[1, COLS], pl.FP32]:
        return self.copy_out(win, res)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(
        self,
        rows: pl.Tensor[[WORLD, 1, COLS], pl.FP32],
        result: pl.Out[pl.Tensor[[WORLD, 1, COLS], pl.FP32]],
    ) -> pl.Tensor[[WORLD, 1, COLS], pl.FP32]:
        buf = pld.alloc_window_buffer(COLS * pl.FP32.get_byte())
        sig_buf = pld.alloc_window_buffer(pld.world_size() * pl.INT32.get_byte())
        for r in pl.range(pld.world_size()):
            win = pld.window(buf, [1, COLS], dtype=pl.FP32)
            self.stage(rows[r], win, device=r)
        win = pld.window(buf, [1, COLS], dtype=pl.FP32)
        sig = pld.window(sig_buf, [pld.world_size()], dtype=pl.INT32)
        win = pld.tensor.allreduce(win, sig, op=pld.ReduceOp.Max)
        for r in pl.range(pld.world_size()):
            self.drain(win, result[r], device=r)
        return result


def _rows(ranks):
    # Every rank holds the maximum of some columns.
    base = np.arange(COLS, dtype=np.float32)
    return np.stack([((base * (r + 3)) % 97).reshape(1, COLS) for r in range(ranks)])


@pytest.mark.parametrize("ranks", [2, 4])
def test_allreduce_max_lands_in_every_row(test_config, device_ids, ranks):
    if len(device_ids) < ranks:
        pytest.skip(f"needs {ranks} devices, --device gives {device_ids}")
    compiled = ir.compile(ScaledMaxReduce, platform=test_config.platform,
                          distributed_config=DistributedConfig(device_ids=device_ids[:ranks]))
    rows = _rows(ranks)
    result = np.zeros_like(rows)
    report = compiled(rows, result)
    expected = np.stack([(rows * 2.0).max(axis=0)] * ranks)
    np.testing.assert_array_equal(result, expected)
    # The run's report: simulated time, statistics and the summary table.
    assert report.sim_time_us > 0
    assert report.stats["chips"] == ranks
    assert "busiest links" in report.summary
    # The generated files, laid out as PyPTO's output directory: the HOST
    # rail's builtin variant has its own sub-build.
    assert (compiled.output_dir / "program.cc").is_file()
    variant = compiled.output_dir / "next_levels" / "builtin.tensor.allreduce__max__fp32"
    assert (variant / "kernel_config.textproto").is_file()
    _check_kernel_config_py(variant)


def _check_kernel_config_py(variant):
    # PyPTO's tests read kernel_config.py: ours is rendered from the textproto
    # beside it and names files that exist in the variant's directory.
    config = runpy.run_path(str(variant / "kernel_config.py"))
    assert config["RUNTIME_CONFIG"]["runtime"] == "tensormap_and_ringbuffer"
    orch = pathlib.Path(config["ORCHESTRATION"]["source"])
    assert orch.is_file() and orch.parent == variant / "orchestration"
    assert config["ORCHESTRATION"]["function_name"] == "aicpu_orchestration_entry"
    [kernel] = config["KERNELS"]
    assert kernel["func_id"] == 0 and kernel["core_type"] == "aiv"
    assert pathlib.Path(kernel["source"]).is_file()
    assert kernel["name"] in (variant / "kernel_config.textproto").read_text()
    assert set(kernel["signature"]) <= {"IN", "OUT"}


def test_output_dir_is_where_the_files_go(test_config, device_ids, tmp_path):
    # PyPTO's second positional parameter of ir.compile; the files are there
    # right after compile, before any call.
    out = tmp_path / "build"
    compiled = ir.compile(ScaledMaxReduce, str(out), platform=test_config.platform,
                          distributed_config=DistributedConfig(device_ids=device_ids[:2]))
    assert compiled.output_dir == out
    assert (out / "program.cc").is_file()
    _check_kernel_config_py(out / "next_levels" / "builtin.tensor.allreduce__max__fp32")


def test_outputs_land_in_torch_tensors(test_config, device_ids):
    torch = pytest.importorskip("torch", reason="python3-torch is not installed")
    compiled = ir.compile(ScaledMaxReduce, platform=test_config.platform,
                          distributed_config=DistributedConfig(device_ids=device_ids[:2]))
    rows = torch.from_numpy(_rows(2))
    result = torch.zeros_like(rows)
    compiled(rows, result)
    expected = torch.stack([(rows * 2.0).max(dim=0).values] * 2)
    assert torch.equal(result, expected)


def test_trace_is_written_where_asked(test_config, device_ids, tmp_path):
    from pypto.runtime import RunConfig  # noqa: PLC0415
    compiled = ir.compile(ScaledMaxReduce, platform=test_config.platform,
                          distributed_config=DistributedConfig(device_ids=device_ids[:2]))
    rows = _rows(2)
    result = np.zeros_like(rows)
    trace = tmp_path / "trace.json"
    report = compiled(rows, result, config=RunConfig(trace_path=str(trace)))
    assert report.trace_path == str(trace)
    assert trace.read_text().lstrip().startswith(("{", "["))
