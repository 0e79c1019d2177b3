"""LiftScalarOperands: number operands of arithmetic and where (masked_fill first) become constant tensors the quantizer can annotate.

How the lifted constants end up quantized: tests/quantizer/test_tosa_quantizer.py
(test_scalar_operands_become_exact_quantized_constants).
"""

import pytest
import torch

from etarm.passes.lift_scalar_operands import LiftScalarOperands
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.testing.cpu_fallback import Fn
from etarm.testing.edge_programs import only_call


def quantizer():
    return TOSAQuantizer("TOSA-1.0+INT").set_global(get_symmetric_quantization_config())


def exported(fn, *shapes):
    """(the exported model as an fx GraphModule, as the quantizer meets it; example inputs)."""
    torch.manual_seed(0)
    inputs = tuple(torch.randn(*shape) for shape in shapes)
    return torch.export.export(Fn(fn), inputs, strict=False).module(), inputs


def lifted(model, node):
    """The values of ``node``'s operands that are lifted constants (get_attr), None for the others."""
    return [float(getattr(model, a.target)) if isinstance(a, torch.fx.Node) and a.op == "get_attr" else None for a in node.args]


# fn, the op it becomes, how many numbers it lifts, the lifted operand values (None: not a constant).
CASES = {
    "mul": (lambda x, y: x * 0.5, "aten.mul.Tensor", 1, [None, 0.5]),
    "add_scalar_overload": (lambda x, y: torch.ops.aten.add.Scalar(x, 3.0), "aten.add.Tensor", 1, [None, 3.0]),
    "rsub": (lambda x, y: 1 - x, "aten.rsub.Tensor", 1, [None, 1.0]),
    "where_other": (lambda x, y: torch.where(y > 0, x, 0.25), "aten.where.self", 1, [None, None, 0.25]),
    "where_self": (lambda x, y: torch.where(y > 0, -2.0, x), "aten.where.self", 1, [None, -2.0, None]),
    "where_both": (lambda x, y: torch.where(y > 0, 0.25, -1.0), "aten.where.self", 2, [None, 0.25, -1.0]),
    "masked_fill": (lambda x, y: x.masked_fill(y > 0, -1.5), "aten.where.self", 1, [None, -1.5, None]),
}


@pytest.mark.parametrize("name", CASES)
def test_number_operands_become_constants(name):
    fn, op, count, values = CASES[name]
    model, inputs = exported(fn, (2, 3), (2, 3))
    assert LiftScalarOperands().run(model, quantizer()) == count
    node = only_call(model, op)
    assert lifted(model, node) == values
    constants = [a for a in node.args if isinstance(a, torch.fx.Node) and a.op == "get_attr"]
    assert all(getattr(model, c.target).dtype == torch.float32 and c.meta["val"].shape == () for c in constants)
    torch.testing.assert_close(model(*inputs), fn(*inputs), rtol=0, atol=0)


def test_masked_fill_with_a_tensor_value_becomes_where():
    fn = lambda x, y: x.masked_fill(y > 0, torch.tensor(2.5))  # noqa: E731
    model, inputs = exported(fn, (2, 3), (2, 3))
    assert LiftScalarOperands().run(model, quantizer()) == 0  # the value is a tensor already
    where = only_call(model, "aten.where.self")
    assert where.args[2].op == "placeholder"  # where(mask, value, x): x is the user input
    assert not [n for n in model.graph.nodes if "masked_fill" in str(n.target)]
    torch.testing.assert_close(model(*inputs), fn(*inputs), rtol=0, atol=0)


def test_every_number_of_a_chain_is_lifted():
    fn = lambda x, y: (x * 0.5 - 3.0) / 4.0  # noqa: E731
    model, inputs = exported(fn, (6,), (6,))
    assert LiftScalarOperands().run(model, quantizer()) == 3
    assert not [n for n in model.graph.nodes if n.op == "call_function" and any(isinstance(a, float) for a in n.args)]
    torch.testing.assert_close(model(*inputs), fn(*inputs), rtol=0, atol=0)


NOT_LIFTED = {
    "integer_tensor": lambda x, y: x.long() * 3,
    "power": lambda x, y: x**2,
    "comparison": lambda x, y: x > 0.5,
}


@pytest.mark.parametrize("name", NOT_LIFTED)
def test_other_numbers_stay(name):
    fn = NOT_LIFTED[name]
    model, _ = exported(fn, (2, 3), (2, 3))
    before = [(n.target, n.args) for n in model.graph.nodes]
    assert LiftScalarOperands().run(model, quantizer()) == 0
    assert [(n.target, n.args) for n in model.graph.nodes] == before


def test_nodes_the_quantizer_leaves_float_keep_their_numbers():
    model, _ = exported(lambda x, y: (x * 0.5).masked_fill(y > 0, 1.0), (2, 3), (2, 3))
    float_only = TOSAQuantizer("TOSA-1.0+INT").set_global(None)
    assert LiftScalarOperands().run(model, float_only) == 0
    assert only_call(model, "aten.mul.Tensor").args[1] == 0.5
    assert only_call(model, "aten.masked_fill.Scalar").args[2] == 1.0
