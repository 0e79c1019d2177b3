"""add / sub / mul on the TOSA INT profile: PT2E-quantized, lowered with RESCALE, compared
with the convert_pt2e'd model in eager. These are exact ops: 1 output step (LSB) allowed,
for the rounding of the int32 rescales against torch's float arithmetic."""

import pytest
import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close


def _inputs(*shapes, scales=None):
    torch.manual_seed(sum(len(s) for s in shapes) + len(shapes))
    scales = scales or [1.0] * len(shapes)
    return tuple(torch.randn(s) * k for s, k in zip(shapes, scales))


@pytest.mark.parametrize(
    "fn, shapes, scales",
    [
        (torch.add, ((2, 3, 4), (2, 3, 4)), [1.0, 1.0]),
        (torch.add, ((1, 4, 1, 6), (3, 1, 5, 1)), [1.0, 8.0]),  # rank-4 broadcast, very different ranges
        (torch.sub, ((2, 3), (3,)), [3.0, 0.1]),  # rank broadcast
        (torch.sub, ((2, 1, 3, 1, 4), (1, 5, 1, 2, 1)), [1.0, 1.0]),  # rank 5
        (torch.mul, ((5,), (5,)), [10.0, 0.01]),  # rank 1, products far from either input range
    ],
    ids=["add", "add_bcast4d", "sub_bcast_rank", "sub_rank5", "mul_ranges"],
)
def test_int8_binary(fn, shapes, scales):
    assert_quantized_close(Fn(fn), _inputs(*shapes, scales=scales))


def test_int8_scalars_and_alpha():
    """Number operands become quantized constants; alpha folds into the operand's scale."""
    fn = lambda x, y: (x + 3.0, x * -0.5, 2.0 - x, torch.sub(x, y, alpha=-2.5), torch.add(x, y, alpha=0.25))  # noqa: E731
    run = assert_quantized_close(Fn(fn), _inputs((2, 3, 4), (4,)))
    assert len(run.result.report["partitions"][0]["outputs"]) == 5


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", "TOSA-1.0+INT+int16"], ids=["int8", "int16"])
def test_product_with_a_positive_constant_is_one_rescale(target):
    """x * c (c > 0 a number, or a one-value constant on either side) is the same single
    rounding as the int32 MUL path, without it; a negative c keeps the MUL."""
    scale = torch.tensor([[0.35]])
    fn = lambda x: (x * 0.25, scale * x, x * -0.5)  # noqa: E731
    run = assert_quantized_close(Fn(fn), _inputs((2, 3, 4)), target=target)
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert ops.count("MUL") == 1, ops


def test_int8_chain_reuses_integer_tensors():
    run = assert_quantized_close(Fn(lambda x, y: (x + y) * y - x), _inputs((4, 4), (4, 4)))
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert (ops.count("ADD"), ops.count("MUL"), ops.count("SUB")) == (1, 1, 1)


def test_partition_io_are_int8_with_qparams():
    run = assert_quantized_close(Fn(torch.add), _inputs((3, 5), (3, 5), scales=[1.0, 4.0]))
    partition = run.result.report["partitions"][0]
    for entry in partition["inputs"] + partition["outputs"]:
        assert entry["dtype"] == "int8" and entry["qdtype"] == "int8"
        assert entry["scale"] > 0 and -128 <= entry["zero_point"] <= 127
    # The second input spans a 4x wider range: its scale is larger.
    assert partition["inputs"][1]["scale"] > 2 * partition["inputs"][0]["scale"]


def test_a16w8_binary():
    """int16 activations (TOSA-1.0+INT+int16): symmetric, zero point 0."""
    fn = lambda x, y: (x + y, x - y, x * y)  # noqa: E731
    run = assert_quantized_close(Fn(fn), _inputs((2, 3, 4), (3, 4), scales=[1.0, 2.0]), target="TOSA-1.0+INT+int16")
    partition = run.result.report["partitions"][0]
    assert [partition["tosa_ops"].count(op) for op in ("ADD", "SUB", "MUL")] == [1, 1, 1]
    for entry in partition["inputs"] + partition["outputs"]:
        assert entry["dtype"] == "int16" and entry["zero_point"] == 0


def test_data_movement_between_quantized_ops():
    """reshape of a permuted tensor becomes clone + view at the edge, with no Q/DQ between
    them: the values keep the parameters of the chain's ends and move unchanged."""
    fn = lambda x, y: torch.relu((x + y).permute(0, 3, 1, 2).reshape(2, -1)[:, 1:5] * y[:1, 0, 0, :1])  # noqa: E731
    run = assert_quantized_close(Fn(fn), _inputs((2, 4, 4, 3), (2, 4, 4, 3)))
    partition = run.result.report["partitions"][0]
    assert "dim_order_ops._clone_dim_order.default" in partition["aten_ops"] and "TRANSPOSE" in partition["tosa_ops"]
