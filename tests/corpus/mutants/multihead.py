"""multihead mutants: nothing outside the part calls these functions."""
from tests.corpus import Mutant


def _m(name, function, old, new, why):
    return Mutant(name, "multihead", function, old, new, why)


MUTANTS = [
    _m("split_view_directly", "split_heads",
       "return x.reshape(N, T, heads, D // heads).transpose(1, 2)",
       "return x.view(N, heads, T, D // heads)",
       "views (N, T, D) as (N, H, T, Dh) directly, so heads take blocks of positions, not of features"),
    _m("merge_without_transpose", "merge_heads",
       "return x.transpose(1, 2).reshape(N, T, H * Dh)",
       "return x.reshape(N, T, H * Dh)",
       "reshapes (N, H, T, Dh) without moving the heads next to the features"),
    _m("mha_ignores_in_proj_bias", "multi_head_self_attention",
       'x @ params["in_proj_weight"].T + params["in_proj_bias"]',
       'x @ params["in_proj_weight"].T',
       "projects with in_proj_weight only, dropping in_proj_bias"),
    _m("mha_out_proj_weight_only", "multi_head_self_attention",
       'merge_heads(context) @ params["out_proj.weight"].T + params["out_proj.bias"]',
       'merge_heads(context) @ params["out_proj.weight"].T',
       "applies out_proj.weight without out_proj.bias"),
    _m("mha_queries_keys_swapped", "multi_head_self_attention",
       "q, k, v = (split_heads", "k, q, v = (split_heads",
       "takes the first D rows of in_proj as keys and the second as queries"),
    _m("mha_no_out_proj", "multi_head_self_attention",
       'return merge_heads(context) @ params["out_proj.weight"].T + params["out_proj.bias"], weights',
       "return merge_heads(context), weights",
       "forgets the output projection"),
]
