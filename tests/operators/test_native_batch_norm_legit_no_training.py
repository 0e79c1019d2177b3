"""batch_norm in inference (aten._native_batch_norm_legit_no_training).

FP: with constant statistics it folds into one MUL and one ADD. INT: one per-channel MUL
(30-bit multipliers) and ADD on int32: 1 LSB; the partition is also compiled by Vela.
(A batch norm after a convolution is folded into it: fold_batch_norm_into_convolution.)

Every target (FP, INT, Ethos-U55, Ethos-U85): the "native_batch_norm_legit_no_training"
rows of python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_composites import INT8, assert_matches_float_model, check_with_vela, seeded
from etarm.testing.random_parameters import randomize
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize(
    "module,shape",
    [
        (torch.nn.BatchNorm1d(3), (4, 3)),
        (torch.nn.BatchNorm1d(3), (2, 3, 7)),
        (torch.nn.BatchNorm2d(5), (2, 5, 3, 4)),
        (torch.nn.BatchNorm3d(3, affine=False), (1, 3, 2, 3, 4)),
    ],
    ids=["1d-rank2", "1d-rank3", "2d", "3d-no-affine"],
)
def test_batch_norm_inference_folds_constants(module, shape):
    torch.manual_seed(4)
    run = assert_close_to_torch(randomize(module), (torch.randn(shape),))
    assert run.result.report["partitions"][0]["tosa_ops"] == ["MUL", "ADD"]


@pytest.mark.parametrize("with_affine", [True, False], ids=["affine", "no-affine"])
def test_batch_norm_inference_with_runtime_statistics(with_affine):
    torch.manual_seed(5)
    x, mean, var = torch.randn(2, 4, 3, 3), torch.randn(4), torch.rand(4) + 0.5
    if with_affine:
        # Inputs in the order the op reads them (input, weight, bias, mean, var): the partition
        # takes its inputs in that order.
        inputs = (x, torch.randn(4), torch.randn(4), mean, var)
        fn = lambda x, w, b, m, v: F.batch_norm(x, m, v, w, b, training=False, eps=1e-3)  # noqa: E731
    else:
        inputs = (x, mean, var)
        fn = lambda x, m, v: F.batch_norm(x, m, v, training=False)  # noqa: E731
    assert_close_to_torch(Fn(fn), inputs)


def test_float16():
    """FP16 statistics are computed in FP32 like torch on CPU; tolerance ~ one FP16 rounding."""
    torch.manual_seed(7)
    module = randomize(torch.nn.BatchNorm1d(4))
    assert_close_to_torch(module.half().eval(), ((torch.randn(3, 4, 8) * 2).half(),), atol=4e-3, rtol=2e-3)


def test_int8(tmp_path):
    """int8 only: convert_pt2e re-exports ~100 conv-bn patterns for any graph holding a
    batch norm (~20 s); int16 shares every line of this lowering but the zero point."""
    module = torch.nn.BatchNorm2d(5).eval()
    torch.manual_seed(4)
    with torch.no_grad():
        module.weight.normal_()
        module.bias.normal_()
        module.running_mean.normal_()
        module.running_var.uniform_(0.05, 3.0)
    inputs = (seeded(2, 5, 4, 3),)
    run = check_with_vela(module, inputs, INT8, tmp_path)
    assert run.result.report["partitions"][0]["tosa_ops"] == ["RESCALE", "MUL", "ADD", "RESCALE"]
    assert_matches_float_model(run, module, inputs)
