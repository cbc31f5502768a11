# Synthetic: a program inside a test function, with a function-level constant.
import pypto.language as pl
import pypto.language.distributed as pld


def test_local_constant():
    N = 4

    @pl.program
    class Local:
        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self):
            buf = pld.alloc_window_buffer(N * pl.INT32.get_byte())
            sig = pld.window(buf, [N], dtype=pl.INT32)
            sig = pld.tensor.barrier(sig)
