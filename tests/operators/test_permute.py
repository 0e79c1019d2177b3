"""permute (permute, transpose, movedim: TOSA TRANSPOSE; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "permute" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import cpu_reason
from etarm.testing.data_movement_checks import DTYPE_TARGETS, assert_dtypes_move_exactly, layout_cases
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close, assert_needs_extension
from etarm.testing.cpu_fallback import Fn
from etarm.testing.npu_runs import assert_all_on_npu
from etarm.testing.quantized_reference import assert_quantized_close


def _permutations(x):
    rank = x.dim()
    fns = {"permute_reversed": lambda x: x.permute(*reversed(range(rank)))}
    if rank > 1:
        fns |= {
            "transpose_0_-1": lambda x: x.transpose(0, -1),
            "movedim_0_-1": lambda x: x.movedim(0, -1),
            "permute_negative": lambda x: x.permute(-1, *range(rank - 1)),
        }
    if rank > 2:
        fns["transpose_1_-2"] = lambda x: x.transpose(1, -2)
    return fns


def test_fp():
    layout_cases(_permutations).assert_close_to_torch()


@pytest.mark.parametrize("target", DTYPE_TARGETS)
def test_dtypes(target):
    assert_dtypes_move_exactly(lambda x: x.permute(2, 0, 1), target)


def test_int32_data_needs_int_profile():
    reason = cpu_reason(
        lambda x: x.permute(1, 0), (torch.randint(0, 9, (2, 3), dtype=torch.int32),), "aten.permute_copy"
    )
    assert reason == "result dtype torch.int32 needs the TOSA INT profile, which TOSA-1.0+FP does not name"


# --- the FP extensions' floats: data layout moves bf16 and fp8 ---


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
@pytest.mark.parametrize("dims", [(1, 0, 2), (2, 0, 1), (0, 2, 1)])
def test_extension_float_permute(dtype, dims):
    x = (torch.rand(2, 3, 4, generator=torch.Generator().manual_seed(8)) * 4 - 2).to(dtype)
    assert_extension_float_close(Fn(lambda t: t.permute(dims)), (x,), dtype)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_permute_needs_its_extension(dtype):
    x = torch.ones(2, 3, 4).to(dtype)
    assert_needs_extension(Fn(lambda t: t.permute(2, 0, 1)), (x,), dtype, "aten.permute_copy.default")


# --- torch.permute_copy itself (traces to aten.permute_copy, annotated as permute: issue 17
# found it left unquantized) ---

PERMUTE_COPIES = {
    "rank1": ((7,), (0,)),
    "rank1_negative": ((7,), (-1,)),
    "rank5": ((2, 3, 4, 2, 5), (4, 0, 3, 1, 2)),
    "rank5_negative": ((2, 3, 4, 2, 5), (-1, -2, -3, -4, -5)),
    "size1_axes": ((1, 3, 1, 4), (2, 3, 0, 1)),
}


@pytest.mark.parametrize("name", PERMUTE_COPIES)
def test_quantized_permute_copy(name):
    shape, dims = PERMUTE_COPIES[name]
    x = torch.randn(shape, generator=torch.Generator().manual_seed(len(shape) + dims[0]))
    fn = Fn(lambda t: torch.permute_copy(t, dims))
    assert_quantized_close(fn, (x,), max_lsb=0)
    assert_quantized_close(fn, (x,), target="TOSA-1.0+INT+int16", max_lsb=0)
    assert_all_on_npu(fn, (x,), "ethos-u55-128")
