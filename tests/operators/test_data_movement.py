"""Data-movement ops (view, permute, squeeze, expand, repeat, cat, split, slice, select, flip,
constant_pad_nd, slice_scatter, clone/alias) on the TOSA reference model against torch eager.

A compile costs about a second, so each test checks many configurations at once: one module
with an output per configuration (``assert_each_exact`` names the one that differs).
Data movement is exact: the tolerance is zero.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn, cpu_reason
from etarm.testing.many_ops import assert_each_exact
from etarm.testing.quantized_reference import assert_quantized_close


def layout_fns(x) -> dict:
    """Views, permutations and flips of ``x``. Views and transposes that keep the shape are
    no-ops removed before partitioning (they would be no partition outputs), so they are left out."""
    rank = x.dim()
    fns = {
        "reshape_flat": lambda x: x.reshape(-1),
        "reshape_reversed": lambda x: x.reshape(x.shape[::-1]),
        "unsqueeze_0": lambda x: x.unsqueeze(0),
        "unsqueeze_-1": lambda x: x.unsqueeze(-1),
        "squeeze_all": lambda x: x.squeeze(),
        "permute_reversed": lambda x: x.permute(*reversed(range(rank))),
        "flip_0": lambda x: x.flip(0),
        "flip_-1": lambda x: x.flip(-1),
    }
    if rank > 1:
        fns |= {
            "flatten_1": lambda x: x.flatten(1),
            "squeeze_1": lambda x: x.squeeze(1),
            "unflatten_-1": lambda x: x.unflatten(-1, (x.shape[-1], 1)),
            "transpose_0_-1": lambda x: x.transpose(0, -1),
            "movedim_0_-1": lambda x: x.movedim(0, -1),
            "permute_negative": lambda x: x.permute(-1, *range(rank - 1)),
            "flip_0_-1": lambda x: x.flip(0, -1),
        }
    if rank > 2:
        fns |= {"transpose_1_-2": lambda x: x.transpose(1, -2), "flip_1_2": lambda x: x.flip(1, 2)}
    return {name: fn for name, fn in fns.items() if name.startswith("flip") or fn(x).shape != x.shape}


# Odd sizes and size-1 axes, rank 1 to 5.
@pytest.mark.parametrize("shape", [(7,), (3, 1), (2, 1, 5), (1, 3, 1, 4), (2, 3, 1, 2, 3)], ids=str)
def test_views_permutes_flips(shape):
    torch.manual_seed(len(shape))
    x = torch.randn(shape)
    assert_each_exact(layout_fns(x), (x,))


def test_views_emit_only_reshapes():
    result = assert_each_exact({"view": lambda x: x.view(3, 2, 1), "squeeze": lambda x: x.unsqueeze(0).squeeze(-1)}, (torch.randn(6, 1),))
    assert set(result.report["partitions"][0]["tosa_ops"]) == {"RESHAPE"}


def test_0d_input():
    fns = {
        "unsqueeze": lambda x: x.unsqueeze(0),
        "reshape": lambda x: x.reshape(1, 1),
        "expand": lambda x: x.expand(2, 3),
        "repeat": lambda x: x.repeat(2, 2),
    }
    assert_each_exact(fns, (torch.tensor(1.5),))


def test_expand_repeat():
    x = torch.randn(3, 1, 5)
    fns = {
        "expand_axis": lambda x: x.expand(3, 4, 5),
        "expand_new_axes_and_-1": lambda x: x.expand(2, -1, 6, -1),
        "expand_leading_1": lambda x: x.expand(1, 3, 1, 5),
        "expand_after_slice": lambda x: x[:, :, :1].expand(-1, 2, 7),
        "repeat": lambda x: x.repeat(2, 3, 1),
        "repeat_more_axes": lambda x: x.repeat(2, 1, 1, 2),
        "tile": lambda x: x.tile((2,)),
        "repeat_interleave": lambda x: x.repeat_interleave(2, dim=1),
        "repeat_interleave_last": lambda x: x.repeat_interleave(3, dim=-1),
    }
    assert_each_exact(fns, (x,))


def test_cat_stack():
    inputs = (torch.randn(3), torch.randn(1), torch.randn(2, 3, 4), torch.randn(2, 1, 4), torch.randn(1, 2, 1, 3, 2))
    fns = {
        "rank1": lambda a, b, c, d, e: torch.cat([a, b, a]),
        "rank3_negative_dim": lambda a, b, c, d, e: torch.cat([c, d, c], -2),
        "rank3_dim0": lambda a, b, c, d, e: torch.cat([c, c]),
        "rank5_last": lambda a, b, c, d, e: torch.cat([e, e[..., :1]], 4),
        "stack": lambda a, b, c, d, e: torch.stack([c, c]),
        "stack_-1": lambda a, b, c, d, e: torch.stack([d, d, d], -1),
        "stack_one": lambda a, b, c, d, e: torch.stack([a], 1),
    }
    assert_each_exact(fns, inputs)


def test_split_chunk_unbind():
    x = torch.randn(7, 5, 3)
    fns = {
        **{f"split3_{i}": lambda x, i=i: x.split(3)[i] for i in range(3)},  # uneven: 3, 3, 1
        **{f"split_sizes_{i}": lambda x, i=i: x.split([1, 4], dim=-2)[i] for i in range(2)},
        **{f"chunk_{i}": lambda x, i=i: x.chunk(2, dim=2)[i] for i in range(2)},
        **{f"unbind_{i}": lambda x, i=i: x.unbind(-1)[i] for i in range(3)},
    }
    assert_each_exact(fns, (x,))


def test_split_unused_pieces_emit_nothing():
    result = assert_each_exact({"middle": lambda x: x.split([2, 3, 2], dim=1)[1]}, (torch.randn(4, 7),))
    assert result.report["partitions"][0]["tosa_ops"] == ["SLICE"]


def test_slice_steps_and_bounds():
    fns = {
        "start_end": lambda x: x[1:4],
        "negative_start": lambda x: x[-3:],
        "step2_padded": lambda x: x[:, ::2],  # the span of 4 groups (8) exceeds the axis (7)
        "step2_start1": lambda x: x[:, 1::2],
        "step3": lambda x: x[:, 1::3],
        "step2_shifted": lambda x: x[:, 4::2],  # the span starts one early to fit
        "clamped_start": lambda x: x[:, -100:3],
        "clamped_end_step4": lambda x: x[:, 2:100:4],
        "step_past_end": lambda x: x[:, ::10],  # one element
        "negative_bounds": lambda x: x[..., -4:-1],
        "step5_last": lambda x: x[..., 1::5],
        "three_axes": lambda x: x[::4, 1:, :1],
        "narrow": lambda x: x.narrow(1, 2, 3),
        "narrow_negative_dim": lambda x: x.narrow(-1, 5, 1),
    }
    assert_each_exact(fns, (torch.randn(5, 7, 6),))


@pytest.mark.parametrize("shape", [(9,), (2, 3, 4, 5, 6)], ids=str)
def test_slice_rank(shape):
    fns = {
        "step2": lambda x: x[..., 1::2],
        "drop_last": lambda x: x[..., :-1],
        "last_of_first_axis": lambda x: x[-1:],
        "step3": lambda x: x[..., ::3],
    }
    assert_each_exact(fns, (torch.randn(shape),))


def test_select():
    fns = {
        "first_axis": lambda x, v: x[1],
        "negative_index": lambda x, v: x[-1],
        "axis1": lambda x, v: x[:, 0],
        "axis1_negative": lambda x, v: x[:, -2],
        "last_axis": lambda x, v: x[..., 4],
        "negative_dim_and_index": lambda x, v: x.select(-1, -5),
        "two_axes": lambda x, v: x[2, 3],
        "to_0d": lambda x, v: v[3],
        "to_0d_negative": lambda x, v: v[-1],
    }
    assert_each_exact(fns, (torch.randn(3, 4, 5), torch.randn(5)))


def test_constant_pad():
    inputs = (torch.randn(5), torch.randn(3, 4), torch.randn(2, 3, 4), torch.randn(1, 2, 3, 4), torch.randn(2, 1, 3, 2, 3))
    fns = {
        "rank1": lambda a, b, c, d, e: F.pad(a, (2, 3)),
        "rank2_value": lambda a, b, c, d, e: F.pad(b, (1, 0, 0, 2), value=-1.5),
        "rank3_crop": lambda a, b, c, d, e: F.pad(c, (-1, 2, 1, -1), value=0.25),  # negative amounts crop
        "rank4_mixed": lambda a, b, c, d, e: F.pad(d, (0, 0, 1, 1, -1, 0, 2, 0), value=7.0),
        "rank5_all_axes": lambda a, b, c, d, e: F.pad(e, (1,) * 10, value=float("inf")),
    }
    assert_each_exact(fns, inputs)


def test_slice_scatter():
    """Each src is the slice it replaces, flipped, so every position changes."""

    def scatter(dim, start, end, step):
        index = (slice(None),) * dim + (slice(start, end, step),)
        return lambda x: torch.slice_scatter(x, x[index].flip(dim), dim, start, end, step)

    fns = {
        "step1": scatter(0, 1, 3, 1),
        "step2_padded": scatter(1, None, None, 2),
        "step3": scatter(1, 1, None, 3),
        "negative_start": scatter(2, -3, None, 1),
        "step2_inner": scatter(2, 1, 6, 2),
        "step2_shifted": scatter(1, 4, 7, 2),  # the span starts one early
        "end_only": scatter(1, None, 2, 1),
    }
    assert_each_exact(fns, (torch.randn(4, 7, 6),))


def test_clone_alias_detach_emit_nothing():
    fns = {
        "clone": lambda x: x.clone().permute(1, 0),
        "alias": lambda x: torch.ops.aten.alias(x).permute(1, 0),
        "detach": lambda x: x.detach().permute(1, 0),
        "clone_as_output": lambda x: x[1:].clone(),
    }
    result = assert_each_exact(fns, (torch.randn(3, 2),))
    assert sorted(result.report["partitions"][0]["tosa_ops"]) == ["SLICE"] + ["TRANSPOSE"] * 3


def mixed_layout_fns() -> dict:
    return {
        "permute": lambda x: x.permute(2, 0, 1),
        "reshape": lambda x: x.reshape(4, -1),
        "slice_step": lambda x: x[:, 1::2],
        "cat": lambda x: torch.cat([x, x[:, :1]], 1),
        "expand_select": lambda x: x.expand(2, 2, 3, 4)[1],
        "flip": lambda x: x.flip(-1),
        "pad": lambda x: F.pad(x, (1, 1), value=1),
        "slice_scatter": lambda x: torch.slice_scatter(x, x[:, ::2].flip(1), 1, 0, None, 2),
        "split": lambda x: x.split([1, 1], 0)[1],
        "repeat": lambda x: x.repeat(1, 1, 2),
    }


@pytest.mark.parametrize(
    "dtype,target",
    [(torch.bool, "TOSA-1.0+FP"), (torch.int32, "TOSA-1.0+FP+INT"), (torch.int8, "TOSA-1.0+FP+INT"), (torch.float16, "TOSA-1.0+FP")],
    ids=["bool", "int32", "int8", "fp16"],
)
def test_dtypes(dtype, target):
    x = torch.randint(-5, 5, (2, 3, 4)).to(dtype)
    assert_each_exact(mixed_layout_fns(), (x,), target)


def test_int32_data_needs_int_profile():
    reason = cpu_reason(lambda x: x.permute(1, 0), (torch.randint(0, 9, (2, 3), dtype=torch.int32),), "aten.permute_copy")
    assert reason == "result dtype torch.int32 needs the TOSA INT profile, which TOSA-1.0+FP does not name"


def test_quantized_int8_chain_is_exact():
    """INT profile (PT2E-quantized): the visitors move int8 values unchanged; the pad value 0.0
    is stored as the zero point (nonzero here: the input is all positive)."""

    def chain(x):
        y = F.pad(x.permute(0, 2, 1), (1, 2), value=0.0)
        y = torch.cat([y, y[:, ::2].flip(-1)], 1)
        return y.reshape(2, -1)[:, 1::3].unsqueeze(0).expand(2, -1, -1)

    run = assert_quantized_close(Fn(chain), (torch.rand(2, 3, 4) * 3 + 1,), max_lsb=0)
    assert run.result.report["partitions"][0]["inputs"][0]["zero_point"] != 0
