"""@pl.jit functions called with NumPy arrays: compiled for the call's shapes
and run on the simulated chips of --device (PyPTO's jit idiom)."""
import numpy as np
import pytest
import pypto
import pypto.language as pl
import pypto.language.distributed as pld
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

RANKS = 2
M = 16
N = 32


@pl.jit.incore
def offset_rows(
    src: pl.Tensor[[M, N], pl.FP32],
    dst: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    t = pl.load(src, [0, 0], [M, N])
    t = pl.mul(t, 3.0)
    t = pl.add(t, pl.cast(rank, target_type=pl.FP32))
    dst = pl.store(t, [0, 0], dst)
    return dst


@pl.jit
def on_device(
    src: pl.Tensor[[M, N], pl.FP32],
    dst: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    return offset_rows(src, dst, rank)


@pl.jit.host
def scale_and_tag(
    src: pl.Tensor[[RANKS, M, N], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, M, N], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        on_device(src[r], dst[r], r, device=r)


def _config(platform):
    return RunConfig(platform=platform,
                     distributed_config=DistributedConfig(device_ids=list(range(RANKS))))


def test_jit_call_writes_every_rank(test_config):
    rng = np.random.default_rng(7)
    src = rng.standard_normal((RANKS, M, N)).astype(np.float32)
    dst = np.zeros_like(src)
    compiled = scale_and_tag.compile(src, dst, config=_config(test_config.platform))
    result = compiled(src, dst)
    expected = src * 3.0 + np.arange(RANKS, dtype=np.float32).reshape(RANKS, 1, 1)
    np.testing.assert_allclose(dst, expected, rtol=1e-6, atol=1e-6)
    assert result.chips == RANKS
    assert result.sim_time_us > 0
    # One chip dispatch per rank from the HOST loop.
    assert all(d >= 1 for d in result.dispatches_per_card)


def test_jit_second_call_reuses_the_build(test_config):
    src = np.ones((RANKS, M, N), dtype=np.float32)
    dst = np.zeros_like(src)
    compiled = scale_and_tag.compile(src, dst, config=_config(test_config.platform))
    compiled(src, dst)
    again = compiled(src * 2, dst)
    assert again.cache_hit
    np.testing.assert_allclose(dst[1], np.full((M, N), 7.0, dtype=np.float32))


@pl.jit.incore
def negate_kernel(src: pl.Tensor, dst: pl.Out[pl.Tensor]):
    t = pl.load(src, [0, 0], [8, 16])
    t = pl.mul(t, -1.0)
    dst = pl.store(t, [0, 0], dst)
    return dst


@pl.jit
def negate_on_device(src: pl.Tensor, dst: pl.Out[pl.Tensor]):
    return negate_kernel(src, dst)


@pl.jit.host
def negate_all(src: pl.Tensor, dst: pl.Out[pl.Tensor]):
    for r in pl.range(pld.world_size()):
        negate_on_device(src[r], dst[r], device=r)


def test_unannotated_tensors_take_the_call_shapes(test_config):
    # Shapes and dtypes come from the call: the HOST function's arguments, and
    # the rows x[r] it passes down to the device and incore functions.
    src = np.arange(RANKS * 8 * 16, dtype=np.float32).reshape(RANKS, 8, 16)
    dst = np.zeros_like(src)
    negate_all(src, dst, config=_config(test_config.platform))
    np.testing.assert_array_equal(dst, -src)


def test_unannotated_tensor_without_a_call_shape_is_named(test_config):
    @pl.jit.host
    def orphan(src: pl.Tensor, dst: pl.Out[pl.Tensor]):
        negate_on_device(src[0:1], dst[0], device=0)

    # A column range src[0:1] gives negate_on_device's 'src' no shape to take.
    src = np.zeros((RANKS, 8, 16), dtype=np.float32)
    line = negate_on_device.fn.__code__.co_firstlineno + 1
    with pytest.raises(pypto.CompileError,
                       match=f"test_jit.py:{line}: error: parameter 'src' of negate_on_device "
                             "is an unannotated pl.Tensor"):
        orphan.compile(src, np.zeros_like(src), config=_config(test_config.platform))
