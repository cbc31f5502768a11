"""Synthetic example: keyword arguments and enum spellings."""
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Notify:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, s: pld.DistributedTensor[[2, 1], pl.INT32]):
        pld.system.notify(target=s, peer=1, offsets=[0, 0], value=1, op=pld.NotifyOp.Set)
        pld.system.wait(s, [0, 0], 1, cmp=pld.WaitCmp.Ge)
