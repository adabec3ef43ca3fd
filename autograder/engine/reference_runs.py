"""Reference computations that every submission is compared with, computed once per process.

A batch grades hundreds of notebooks in one grading process, so the reference smoke
run (and the data splits) are paid for once, not once per submission.
"""
import functools

import torch

import solutions.reference as ref
from .probes import lab


@functools.lru_cache(maxsize=1)
def splits():
    return lab().lab_splits()


@functools.lru_cache(maxsize=1)
def positions():
    return ref.sinusoidal_positions(lab().MAX_POSITIONS, lab().WIDTH)


def test_loss(state, mask_fn=ref.causal_mask_blocked):
    """Reserved-test loss of trained weights, evaluated with the reference shift and loss."""
    model = lab().TinyTransformer(positions(), mask_fn)
    model.load_state_dict(state)
    model.eval()
    with torch.no_grad():
        return lab().split_loss(model, splits()["test"], ref.shift_for_next_token, ref.next_token_loss).item()


@functools.lru_cache(maxsize=1)
def smoke_run():
    """The reference smoke run: (state_dict, validation-selected loss, test loss)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the lab's numbers are for one thread, like the worker's run
    try:
        model, best_val = lab().train_lab(lab().EPOCHS["smoke"], positions(), ref.causal_mask_blocked,
                                          ref.shift_for_next_token, ref.next_token_loss)
    finally:
        torch.set_num_threads(threads)
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    return state, best_val, test_loss(state)
