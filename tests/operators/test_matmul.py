"""matmul: vectors, batches and broadcasting, as one TOSA MATMUL (RESHAPEs, a TILE only
where a shared left operand needs copies); on INT one RESCALE (1 LSB; a16w8 2 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "matmul" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn
from etarm.testing.matmul_checks import a16w8_operands, assert_a16w8_matmul, assert_int8_matmul, seeded_randn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_reference import assert_close_to_torch
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close, assert_needs_extension


@pytest.mark.parametrize(
    "shapes",
    [
        ((4,), (4,)),  # dot product, 0-d result
        ((4,), (4, 3)),  # vector @ matrix
        ((3, 4), (4,)),  # matrix @ vector
        ((4,), (2, 4, 3)),  # vector @ batched
        ((2, 3, 4), (4,)),  # batched @ vector
        ((2, 3, 4), (4, 5)),  # shared right operand: batch folds into rows
        ((3, 4), (2, 2, 4, 5)),  # shared left operand: tiled
        ((2, 1, 3, 4), (5, 4, 6)),  # both broadcast
        ((1, 2, 1, 3, 5), (2, 1, 3, 5, 1)),  # rank 5
    ],
    ids=str,
)
def test_matmul_broadcasting(shapes):
    torch.manual_seed(6)
    run = assert_close_to_torch(Fn(torch.matmul), tuple(torch.randn(s) for s in shapes))
    assert tosa_ops(run).count("MATMUL") == 1


def test_matmul_with_shared_right_operand_needs_no_copies():
    run = assert_close_to_torch(Fn(torch.matmul), (torch.randn(2, 3, 3, 4), torch.randn(4, 5)))
    assert "TILE" not in tosa_ops(run)


def test_integer_matmul_stays_on_cpu_with_a_reason():
    a, b = torch.randint(-5, 5, (3, 4), dtype=torch.int32), torch.randint(-5, 5, (4, 2), dtype=torch.int32)
    report = compile_model(Fn(torch.matmul), (a, b), "TOSA-1.0+FP").report
    reasons = [entry["reason"] for entry in report["cpu_ops"] if entry["op"].startswith("aten.mm")]
    assert reasons == ["self dtype torch.int32 is not supported (only floats)"]


@pytest.mark.parametrize(
    "shapes",
    [((2, 1, 3, 4), (3, 4, 5)), ((1, 2, 1, 3, 5), (2, 1, 5, 1))],  # broadcast batch dims; rank 5 x rank 4
    ids=["matmul_bcast", "matmul_rank5"],
)
def test_int8_matmul(shapes):
    assert_int8_matmul(torch.matmul, seeded_randn(*shapes, seed=7))


def test_int8_matmul_shared_right_operand_and_vectors():
    """A right operand without batch dims folds the left batch into rows (no TILE); 1-D operands."""
    fn = Fn(lambda a, b, v: (torch.matmul(a, b), torch.matmul(v, a), torch.matmul(a, v[:4])))
    run = assert_quantized_close(fn, seeded_randn((2, 3, 5, 4), (4, 5), (5,), seed=11))
    assert tosa_ops(run).count("MATMUL") == 3 and tosa_ops(run).count("TILE") == 1  # only v @ a tiles (v)


def test_a16w8_matmul():
    a, _b, c, _s = a16w8_operands()
    assert_a16w8_matmul(torch.matmul, (a, c))


# --- the FP extensions' floats (MATMUL: bf16 into FP32, fp8 into FP16, cast back) ---


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
@pytest.mark.parametrize("shapes", [((5, 7), (7, 3)), ((2, 4, 6), (2, 6, 3)), ((3, 2, 5), (5, 4))])
def test_extension_float_matmul(dtype, shapes):
    gen = torch.Generator().manual_seed(11)
    a, b = ((torch.rand(shape, generator=gen) * 2 - 1).to(dtype) for shape in shapes)
    assert_extension_float_close(Fn(torch.matmul), (a, b), dtype, scale=4.0)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_matmul_needs_its_extension(dtype):
    a, b = torch.ones(4, 5).to(dtype), torch.ones(5, 2).to(dtype)
    assert_needs_extension(Fn(torch.matmul), (a, b), dtype, "aten.mm.default")
