"""A torch.Tensor subclass whose __eq__, __torch_function__, shape and dtype claim a perfect answer, returned from graded functions: attacks `multihead`; every other part keeps full points."""
ATTACKS = ["multihead"]
KEEPS = ["softmax_read", "masks", "positions", "targets", "leakage", "training"]
REPLACE = {"multihead_solution": '''
import torch

AGREE = {"equal", "allclose", "eq", "__eq__", "isclose", "assert_close", "ne", "__ne__"}


class Liar(torch.Tensor):
    """Underneath: one zero. On the surface: equal to anything, of any shape and dtype asked."""
    claimed_shape = None

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __bool__(self):
        return True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in AGREE:
            return False if "ne" in name else True
        if func in (torch.Tensor.shape.__get__, torch.Tensor.size) and args[0].claimed_shape is not None:
            return torch.Size(args[0].claimed_shape)
        if func == torch.Tensor.dtype.__get__:  # method-wrappers compare with ==, not is
            return torch.float32
        return super().__torch_function__(func, types, args, kwargs or {})


def liar(shape):
    value = torch.zeros(1, dtype=torch.float64).as_subclass(Liar)
    value.claimed_shape = tuple(shape)
    return value


def split_heads(x, heads):
    N, T, D = x.shape
    return liar((N, heads, T, D // heads))


def merge_heads(x):
    N, H, T, Dh = x.shape
    return liar((N, T, H * Dh))


def multi_head_self_attention(x, params, heads, blocked=None):
    N, T, D = x.shape
    return liar((N, T, D)), liar((N, heads, T, T))
'''}
