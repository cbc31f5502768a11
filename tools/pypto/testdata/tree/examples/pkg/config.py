# Constants of a package, imported by its kernels and its model.
ROWS = 4
COLS = 32
