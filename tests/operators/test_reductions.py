"""Reductions on the TOSA FP profile: sum, mean, amax/amin, prod, max/min (values and indices),
argmax/argmin, var/std, cumsum, any, softmax/log_softmax.

Compiling is the slow part, so each test compiles ONE module that returns several related
results for one (shape, dim, keepdim) configuration; ``assert_outputs`` names the failing one.
"""

import numpy as np
import pytest
import torch

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn
from etarm.testing.tosa_reference import lower_and_run


def assert_outputs(fn, inputs, names, atol=1e-5, rtol=1e-5):
    """Lowers ``fn`` to ONE TOSA partition, runs it on the reference model, compares each
    named output with torch eager.

    The partition returns results in graph order, so ``fn`` must compute them in the
    order it returns them (inline in the returned tuple).
    """
    run = lower_and_run(Fn(fn), inputs)
    assert len(run.tosa_outputs) == len(names) == len(run.torch_outputs)
    for name, got, want in zip(names, run.tosa_outputs, run.torch_outputs):
        want = want.detach().numpy()
        assert got.shape == want.shape, f"{name}: shape {got.shape} != torch {want.shape}"
        if want.dtype == np.int64:
            want = want.astype(np.int32)
        np.testing.assert_allclose(got.astype(want.dtype), want, atol=atol, rtol=rtol, err_msg=name)
    return run


def cpu_reasons(fn, inputs, target="TOSA-1.0+FP"):
    """{edge op: reason} of the nodes left on CPU."""
    report = compile_model(Fn(fn), inputs, target).report
    return {entry["op"]: entry["reason"] for entry in report["cpu_ops"]}


# (shape, dim, keepdim): ranks 1-5, negative dims, several dims (adjacent and not), odd sizes.
MULTI_DIM_CASES = [
    ((7,), 0, False),
    ((7,), -1, True),
    ((3, 5), -1, True),
    ((3, 5), [0, 1], False),
    ((2, 3, 5), [0, 2], False),
    ((2, 3, 4, 5), [1, 2], True),
    ((2, 3, 1, 4, 5), [-1, -4], False),
    ((2, 3, 2, 3, 3), [1, 2, 3], True),
]


@pytest.mark.parametrize("shape,dim,keepdim", MULTI_DIM_CASES, ids=str)
def test_sum_mean_extrema_variance(shape, dim, keepdim):
    torch.manual_seed(0)

    def fn(x):
        return (
            x.sum(dim, keepdim=keepdim),
            x.mean(dim, keepdim=keepdim),
            x.amax(dim, keepdim=keepdim),
            x.amin(dim, keepdim=keepdim),
            x.var(dim, keepdim=keepdim, correction=0),
            x.var(dim, keepdim=keepdim),
            x.std(dim, keepdim=keepdim),
            torch.std(x, dim, keepdim=keepdim, unbiased=False),
        )

    names = ["sum", "mean", "amax", "amin", "var0", "var1", "std1", "std0"]
    assert_outputs(fn, (torch.randn(shape),), names)


@pytest.mark.parametrize(
    "shape,dim,keepdim",
    [((7,), -1, False), ((4, 5), 0, True), ((2, 3, 5), 1, False), ((2, 3, 4, 5), -2, True), ((2, 1, 3, 2, 5), 4, False)],
    ids=str,
)
def test_along_one_dim(shape, dim, keepdim):
    """Ops that take exactly one dim: prod, max/min.dim (values + indices), argmax/argmin,
    cumsum, softmax and log_softmax."""
    torch.manual_seed(1)

    def fn(x):
        return (
            x.prod(dim, keepdim=keepdim),
            *x.max(dim, keepdim=keepdim),
            *x.min(dim, keepdim=keepdim),
            x.argmax(dim, keepdim=keepdim),
            x.argmin(dim, keepdim=keepdim),
            x.cumsum(dim),
            x.softmax(dim),
            x.log_softmax(dim),
        )

    names = ["prod", "max", "argmax(max)", "min", "argmin(min)", "argmax", "argmin", "cumsum", "softmax", "log_softmax"]
    run = assert_outputs(fn, (torch.randn(shape),), names)
    assert "ARGMAX" in run.result.report["partitions"][0]["tosa_ops"]


def test_whole_tensor_reductions():
    """No dim: 0-d results (and argmax/argmin over the flattened input)."""
    torch.manual_seed(2)

    def fn(x):
        return (x.sum(), x.mean(), x.max(), x.min(), x.amax(), x.prod(), x.var(), x.std(correction=0), x.argmax(), x.argmin())

    names = ["sum", "mean", "max", "min", "amax", "prod", "var", "std", "argmax", "argmin"]
    assert_outputs(fn, (torch.randn(2, 3, 5) * 0.5 + 1.0,), names)


def test_argmax_flat_with_keepdim():
    torch.manual_seed(3)
    x = torch.randn(3, 1, 5)
    assert_outputs(lambda x: (x.argmax(keepdim=True), x.argmin(keepdim=True)), (x,), ["argmax", "argmin"])


def test_ties_pick_the_first_index():
    x = torch.tensor([[1.0, 3.0, 3.0, -2.0, -2.0], [0.0, 0.0, 0.0, 0.0, 0.0], [5.0, -1.0, 5.0, -1.0, 2.0]])
    assert_outputs(
        lambda x: (x.argmax(1), x.argmin(1), x.max(1).indices, x.min(1).indices),
        (x,),
        ["argmax", "argmin", "max.indices", "min.indices"],
    )


def test_nan_propagates_like_torch():
    x = torch.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, 6.0]])
    assert_outputs(
        lambda x: (x.amax(1), x.amin(1), x.argmax(1), x.argmin(1), x.sum(1)),
        (x,),
        ["amax", "amin", "argmax", "argmin", "sum"],
    )


@pytest.mark.parametrize("shape,dim", [((1,), 0), ((2,), 0), ((33,), -1), ((3, 16, 2), 1), ((2, 2, 3, 2, 9), -1)], ids=str)
def test_cumsum_lengths(shape, dim):
    """Scan steps at lengths 1, 2, powers of two and odd lengths; inf/-inf must not poison neighbours."""
    torch.manual_seed(4)
    x = torch.randn(shape)
    if x.numel() > 4:
        x.view(-1)[3] = float("inf")
    assert_outputs(lambda x: x.cumsum(dim), (x,), ["cumsum"])


def test_any():
    torch.manual_seed(5)
    flags = torch.randn(2, 3, 4, 5) > 1.0
    assert_outputs(
        lambda b: (b.any(), b.any(-1), b.any(1, keepdim=True), torch.any(b, dim=(0, 2)), torch.any(b, dim=(1, 3), keepdim=True)),
        (flags,),
        ["any()", "any(-1)", "any(1, keepdim)", "any((0, 2))", "any((1, 3), keepdim)"],
    )


def test_any_of_floats_treats_nan_and_nonzero_as_true():
    x = torch.tensor([[0.0, 0.0, 0.0], [0.0, float("nan"), 0.0], [0.0, -0.0, 2.5]])
    assert_outputs(lambda x: (x.any(1), x.any()), (x,), ["any(1)", "any()"])


def test_softmax_is_stable_for_extreme_inputs():
    x = torch.tensor([[1e4, -1e4, 0.0, 3.0], [-float("inf"), 1.0, 2.0, -float("inf")], [88.0, 89.0, 90.0, 87.0]])
    assert_outputs(lambda x: (x.softmax(-1), x.log_softmax(1), x.softmax(0)), (x,), ["softmax", "log_softmax", "softmax(0)"])


def test_float16_accumulates_in_float32():
    """FP16 sums/variances/softmax compute in FP32 and round once, like torch on CPU; the
    tolerance is one FP16 rounding (2^-11 relative)."""
    torch.manual_seed(6)
    x = (torch.randn(3, 64) * 4).half()
    fn = lambda x: (x.sum(-1), x.mean(0), x.var(1), x.softmax(-1), x.cumsum(1), x.amax(1), x.argmin(1))
    run = assert_outputs(fn, (x,), ["sum", "mean", "var", "softmax", "cumsum", "amax", "argmin"], atol=2e-3, rtol=1e-3)
    assert "CAST" in run.result.report["partitions"][0]["tosa_ops"]


def test_rejected_inputs_stay_on_cpu_with_a_reason():
    ints = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    reasons = cpu_reasons(lambda x: (x.sum(1), x.cumsum(0), x.argmax(1)), (ints,))
    for op in ("aten.sum", "aten.cumsum", "aten.argmax"):
        (entry,) = [reason for name, reason in reasons.items() if name.startswith(op)]
        assert "dtype torch.int32 is not supported" in entry


def test_variance_without_degrees_of_freedom_stays_on_cpu():
    reasons = cpu_reasons(lambda x: x.var(1), (torch.randn(3, 1),))
    (reason,) = [r for op, r in reasons.items() if op.startswith("aten.var")]
    assert "correction=1 leaves no degrees of freedom" in reason


def test_multi_axis_reduction_is_one_reduce_per_run_of_axes():
    """Adjacent reduced axes merge through a RESHAPE: mean over 3 adjacent dims is one REDUCE_SUM."""
    run = assert_outputs(lambda x: x.mean((1, 2, 3)), (torch.randn(2, 3, 4, 5, 2),), ["mean"])
    assert run.result.report["partitions"][0]["tosa_ops"].count("REDUCE_SUM") == 1


def test_empty_input_stays_on_cpu_with_a_reason():
    reasons = cpu_reasons(lambda x: x.amax(1), (torch.randn(0, 4),))
    (reason,) = [r for op, r in reasons.items() if op.startswith("aten.amax")]
    assert reason == "input has no elements (TOSA tensors cannot be empty)"
