"""Several ops in one partition: chains that reuse tensors, and the module's operand and
output order kept through the partition (FP: against torch; INT: within 1 LSB of the
quantized model, data movement exactly)."""

import torch
import torch.nn.functional as F

from etarm.testing.binary_checks import arithmetic_operands
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_reference import assert_close_to_torch


def test_chain_is_one_partition():
    run = assert_close_to_torch(Fn(lambda x, y: (x + y) * y - x), (torch.randn(4, 4), torch.randn(4, 4)))
    assert run.result.report["partitions"][0]["tosa_ops"].count("MUL") == 1


def test_operands_and_outputs_keep_module_order():
    # The partition reads y before x and computes the second output first: the harness must
    # map both back to the module's order, or these same-shape values get compared crosswise.
    class TwoOutputs(torch.nn.Module):
        def forward(self, x, y):
            second = y * 3.0
            first = y - x
            return first, second

    assert_close_to_torch(TwoOutputs(), (torch.randn(2, 5), torch.randn(2, 5)))


def test_int8_chain_reuses_integer_tensors():
    run = assert_quantized_close(Fn(lambda x, y: (x + y) * y - x), arithmetic_operands((4, 4), (4, 4)))
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert (ops.count("ADD"), ops.count("MUL"), ops.count("SUB")) == (1, 1, 1)


def test_int8_data_movement_between_quantized_ops():
    """reshape of a permuted tensor becomes clone + view at the edge, with no Q/DQ between
    them: the values keep the parameters of the chain's ends and move unchanged."""
    fn = lambda x, y: torch.relu((x + y).permute(0, 3, 1, 2).reshape(2, -1)[:, 1:5] * y[:1, 0, 0, :1])  # noqa: E731
    run = assert_quantized_close(Fn(fn), arithmetic_operands((2, 4, 4, 3), (2, 4, 4, 3)))
    partition = run.result.report["partitions"][0]
    assert "dim_order_ops._clone_dim_order.default" in partition["aten_ops"] and "TRANSPOSE" in partition["tosa_ops"]


def test_int8_data_movement_chain_is_exact():
    """The visitors move int8 values unchanged; the pad value 0.0 is stored as the zero point
    (nonzero here: the input is all positive)."""

    def chain(x):
        y = F.pad(x.permute(0, 2, 1), (1, 2), value=0.0)
        y = torch.cat([y, y[:, ::2].flip(-1)], 1)
        return y.reshape(2, -1)[:, 1::3].unsqueeze(0).expand(2, -1, -1)

    run = assert_quantized_close(Fn(chain), (torch.rand(2, 3, 4) * 3 + 1,), max_lsb=0)
    assert run.result.report["partitions"][0]["inputs"][0]["zero_point"] != 0
