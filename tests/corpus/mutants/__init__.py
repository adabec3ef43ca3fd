"""Every mutant, one module per part (each keeps to its own part's functions)."""
from . import leakage, masks, multihead, positions, softmax_read, targets

MUTANTS = [m for module in (softmax_read, masks, multihead, positions, targets, leakage) for m in module.MUTANTS]
assert len({m.name for m in MUTANTS}) == len(MUTANTS), "mutant names must be unique"
