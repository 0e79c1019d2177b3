"""bf16 sweep: every FP-profile operator whose visitor lowers bf16 (NodeVisitor.extension_floats),
on TOSA-1.0+FP+bf16, run on the TOSA reference model against torch's own bf16 kernels.

An operator whose op sample (python/etarm/testing/op_samples.py) has float data runs that
sample with its float inputs and parameters in bf16. Samples on integer or bool data get bf16
cases of their own here (comparisons, logic, triangles, creation, casts). Operators on integers
only (bitwise, shifts) declare no bf16, and torch itself refuses bf16 for them, which the sweep
checks, so that list cannot hide an operator. Tolerance: two bf16 steps (~1.6e-2 relative), the
two roundings of an intermediate that torch and the lowering may place differently (measured:
all within 0.007).
"""

import pytest
import torch

from etarm.lowering.registry import registered_targets
from etarm.testing.cpu_fallback import Fn
from etarm.testing.extension_floats import tolerance
from etarm.testing.op_samples import FLOAT_SAMPLES, SAMPLES
from etarm.testing.tosa_reference import assert_matches, lower_and_run

BF16 = torch.bfloat16
TARGET = "TOSA-1.0+FP+bf16"
aten = torch.ops.aten


def _bf16(*shape, seed=0, low=-2.0, high=2.0):
    values = torch.rand(shape, generator=torch.Generator().manual_seed(seed)) * (high - low) + low
    return values.to(BF16)


def _with_ties(*shape):
    """Values on a coarse grid (so comparisons meet equal values), a quarter of them zero."""
    return (torch.randint(-4, 5, shape, generator=torch.Generator().manual_seed(3)) * 0.5).to(BF16)


_A, _B = _with_ties(2, 3, 8), _with_ties(2, 3, 8).flip(-1)
_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
# Operators whose op sample moves integers or bools: bf16 cases of the same operator.
OWN_CASES = {
    **{f"aten.{c}.Tensor": (lambda c: (lambda x, y: getattr(torch, c)(x, y), (_A, _B)))(c) for c in _COMPARISONS},
    **{f"aten.{c}.Scalar": (lambda c: (lambda x: getattr(torch, c)(x, 0.5), (_A,)))(c) for c in _COMPARISONS},
    "aten.where.self": (lambda x, y: torch.where(x > y, x, y), (_A, _B)),
    "aten.logical_and.default": (torch.logical_and, (_A, _B)),
    "aten.logical_or.default": (torch.logical_or, (_A, _B)),
    "aten.logical_xor.default": (torch.logical_xor, (_A, _B)),
    "aten.logical_not.default": (torch.logical_not, (_A,)),
    "aten.any.default": (torch.any, (_A,)),
    "aten.any.dim": (lambda x: torch.any(x, dim=1), (_A,)),
    "aten.any.dims": (lambda x: torch.any(x, dim=(0, 2)), (_A,)),
    "aten.tril.default": (torch.tril, (_bf16(2, 6, 6),)),
    "aten.triu.default": (lambda x: torch.triu(x, 1), (_bf16(2, 6, 6),)),
    "aten._to_copy.default": (lambda x: aten._to_copy.default(x * 3, dtype=BF16), (_bf16(3, 5).float(),)),
    "dim_order_ops._to_dim_order_copy.default": (lambda x: (x * 3).to(torch.float32), (_bf16(3, 5),)),
    "aten.arange.start_step": (lambda x: x + torch.arange(2, 18, 2, dtype=BF16), (_bf16(8, 8),)),
    "aten.arange.start": (lambda x: x * torch.arange(3, 11, dtype=BF16), (_bf16(8, 8),)),
    "aten.arange.default": (lambda x: x - torch.arange(8, dtype=BF16), (_bf16(8, 8),)),
    "aten.full.default": (lambda x: x + torch.full((8, 8), 1.5, dtype=BF16), (_bf16(8, 8),)),
    "aten.full_like.default": (lambda x: x * torch.full_like(x, -0.75), (_bf16(8, 8),)),
    "aten.eye.default": (lambda x: x + torch.eye(8, dtype=BF16), (_bf16(8, 8),)),
    "aten.eye.m": (lambda x: x + torch.eye(8, 8, dtype=BF16), (_bf16(8, 8),)),
    "aten.linspace.default": (lambda x: x + torch.linspace(-1, 2.5, 8, dtype=BF16), (_bf16(8, 8),)),
    "aten.scalar_tensor.default": (lambda x: x + aten.scalar_tensor.default(0.25, dtype=BF16), (_bf16(8, 8),)),
}
# Operators on integers (and bools) only: their visitors lower no bf16, and torch has no bf16
# form of them either.
INTEGER_ONLY = {
    *(f"aten.bitwise_{op}.{o}" for op in ("and", "or", "xor") for o in ("Tensor", "Scalar")),
    "aten.bitwise_not.default",
    *(f"aten.bitwise_{d}_shift.{o}" for d in ("left", "right") for o in ("Tensor", "Tensor_Scalar", "Scalar_Tensor")),
    *(f"aten.__{d}shift__.{o}" for d in ("l", "r") for o in ("Tensor", "Scalar")),
}


def bf16_operators() -> list[str]:
    return sorted(
        op
        for op, visitor in registered_targets().items()
        if BF16 in visitor.extension_floats and "FP" in visitor.profiles
    )


def _has_float_data(module, inputs) -> bool:
    tensors = list(inputs) + list(module.parameters()) + list(module.buffers())
    return any(t.dtype.is_floating_point for t in tensors)


def test_every_bf16_operator_has_a_case():
    """Each operator is swept through its sample or a case of its own."""
    missing = []
    for op in bf16_operators():
        sample = FLOAT_SAMPLES.get(op) or SAMPLES[op]
        if op not in OWN_CASES and not _has_float_data(sample.module(), sample.inputs()):
            missing.append(op)
    assert not missing, f"no bf16 case for {missing}"


def test_only_integer_operators_lower_no_bf16():
    fp_operators = {op for op, visitor in registered_targets().items() if "FP" in visitor.profiles}
    assert fp_operators - set(bf16_operators()) == INTEGER_ONLY


@pytest.mark.parametrize("op", sorted(INTEGER_ONLY))
def test_integer_only_operators_have_no_bf16_in_torch(op):
    namespace, name, overload = op.split(".")
    kernel = getattr(getattr(getattr(torch.ops, namespace), name), overload)
    x = torch.ones(2, 3, dtype=BF16)
    arguments = {"Tensor": (x, x), "Scalar": (x, 1), "Tensor_Scalar": (x, 1), "Scalar_Tensor": (1, x), "default": (x,)}
    with pytest.raises(RuntimeError):
        kernel(*arguments[overload])


@pytest.mark.parametrize("op", bf16_operators())
def test_bf16(op):
    if op in OWN_CASES:
        fn, inputs = OWN_CASES[op]
        module = Fn(fn)
    else:
        sample = FLOAT_SAMPLES.get(op) or SAMPLES[op]
        module = (sample.module_of([op]) if sample.fns else sample.module()).to(BF16)
        inputs = tuple(t.to(BF16) if t.dtype.is_floating_point else t for t in sample.inputs())
    inputs = tuple(t.clone() for t in inputs)  # torch's run below may write into them (aten.copy)
    run = lower_and_run(module, inputs, TARGET)
    wanted = run.torch_outputs
    if op == "aten.copy.default":  # the program also returns the input it wrote back: the same values
        wanted = wanted * len(run.tosa_outputs)
    assert len(run.tosa_outputs) == len(wanted)
    for got, want in zip(run.tosa_outputs, wanted):
        assert_matches(got, want, tolerance(BF16), tolerance(BF16))
