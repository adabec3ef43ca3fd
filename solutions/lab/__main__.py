"""`python -m solutions.lab [--smoke]`: the lab's report with the reference pieces."""
import argparse
import time

import torch

from solutions import reference as ref
from solutions.lab import lab


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smoke", action="store_true", help="2 epochs: checks execution, not convergence")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    epochs = lab.EPOCHS["smoke" if args.smoke else "full"]
    print(f"PyTorch {torch.__version__}; {epochs} epochs on modular counting (vocab {lab.VOCAB})")
    positions = ref.sinusoidal_positions(lab.MAX_POSITIONS, lab.WIDTH)

    def leak_check(model, tokens, cut, vocab):
        change = ref.prefix_change(model, tokens, cut, vocab)
        print(f"Causality check, max prefix change before training: {change:.2e}")
        ref.assert_no_future_leakage(model, tokens, cut, vocab)

    def progress(epoch, val):
        print(f"  epoch {epoch:2d}/{epochs}  validation loss {val:.4f}", flush=True)

    start = time.perf_counter()
    model, best_val = lab.train_lab(epochs, positions, ref.causal_mask_blocked, ref.shift_for_next_token,
                                    ref.next_token_loss, leak_check=leak_check, progress=progress)
    with torch.no_grad():
        test = lab.split_loss(model, lab.lab_splits()["test"], ref.shift_for_next_token, ref.next_token_loss).item()
    print(f"Validation-selected loss {best_val:.4f}; reserved test loss {test:.4f}; "
          f"uniform baseline log({lab.VOCAB}) = {lab.BASELINE:.4f}")
    print("Generated from 2:", lab.greedy_generate(model, 2))
    print(f"({time.perf_counter() - start:.1f} s.) Eight distinct patterns only: held-out draws test the toy rule, "
          "not language.")
    if args.smoke:
        print("Smoke run: this checks that everything executes, not that it converges.")


if __name__ == "__main__":
    main()
