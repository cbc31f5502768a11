# Not one of the files the goal names: never read.
import pypto.language as pl


@pl.program
class NotListed:
    pass
