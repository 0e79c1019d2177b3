"""cortex_m.quantized_table from the compiler's side: which quantized activations become the table op (int8 and
--a16w8), its results against the PT2E model (int8: bit for bit; int16: within INT16_TABLE_MAX_LSB steps, exact in
patched segments and where the 65536-entry table is taken), the ops kept whole for it, its NHWC reads, and the reasons
when not lowered."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from executorch.exir import EdgeCompileConfig

from etarm.compiler import quantize_model
from etarm.cortex_m import CortexMQuantizer
from etarm.cortex_m.compile_spec import CortexMCompileSpec
from etarm.cortex_m.ops.quantized_table import (
    INT16_EXACT_ENTRIES,
    INT16_INTERPOLATED_ENTRIES,
    PATCHES_START,
    SEGMENT_BITS,
    is_patched_size,
    quantized_table,
)
from etarm.cortex_m.partitioner import CortexMPartitioner
from etarm.cortex_m.passes.matching import REASON
from etarm.cortex_m.passes.quantized_activations_as_tables import ops_to_keep_whole, table_op_names
from etarm.edge_lowering import lower_to_edge
from etarm.lowering.quantized_lookup import INT16_TABLE_MAX_LSB, lookup_table_values
from etarm.op_names import op_name
from etarm.passes.base import Stage
from etarm.quantization.quantization_config import get_symmetric_a16w8_quantization_config
from etarm.testing.edge_programs import calls
from etarm.tosa_ir.quant_params import is_dequantize, qparams_of

_TABLE = "cortex_m.quantized_table.default"

# Activations of any real input, by name (the built-in networks': hardswish in mobilenet_v3_small, silu and sigmoid in
# efficientnet_b0, gelu in deit_tiny, sigmoid and tanh in lstm / gru).
_ANY_INPUT = {
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "exp": torch.exp,
    "elu": F.elu,
    "selu": F.selu,
    "celu": lambda x: F.celu(x, alpha=0.7),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.05),
    "mish": F.mish,
    "softplus": F.softplus,
    "erf": torch.erf,
    "sin": torch.sin,
    "atan": torch.atan,
    "abs": torch.abs,
    "neg": torch.neg,
    "floor": torch.floor,
    "floor_wide": lambda x: torch.floor(x * 100),  # a step every 0.4 segments: exact int16 tables
    "square": lambda x: x**2,
}
# Functions of a positive input: steep near 0, so int16 takes exact tables.
_POSITIVE_INPUT = {
    "log": torch.log,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "reciprocal": torch.reciprocal,
    "logit": lambda x: torch.logit(x, eps=1e-3),
}


class _Activations(torch.nn.Module):
    """Each function of the quantized input: no other op's rounding in between."""

    def __init__(self, functions: dict):
        super().__init__()
        self.functions = list(functions.values())

    def forward(self, x):
        return tuple(f(x) for f in self.functions)


def _quantizer(a16w8: bool) -> CortexMQuantizer:
    quantizer = CortexMQuantizer()
    return quantizer.set_global(get_symmetric_a16w8_quantization_config()) if a16w8 else quantizer


def _lower(model: torch.nn.Module, inputs: tuple, a16w8: bool = False, quantizer=None):
    """(the PT2E model, the edge program after the Cortex-M passes), lowered as compile_model does."""
    quantized = quantize_model(model, inputs, quantizer or _quantizer(a16w8))
    spec = CortexMCompileSpec("cortex-m55")
    exported = torch.export.export(quantized, inputs, strict=False)
    edge = lower_to_edge(
        exported,
        spec.pipeline().stage(Stage.EDGE),
        [CortexMPartitioner(spec)],
        EdgeCompileConfig(_check_ir_validity=False),
    )
    return quantized, edge.exported_program()


def _steps(program, got, expected) -> list[float]:
    """Each output's largest difference from the PT2E model's, in its quantization steps."""
    (output,) = [n for n in program.graph.nodes if n.op == "output"]
    steps = []
    for node, g, e in zip(output.args[0], got, expected):
        assert is_dequantize(node)
        steps.append(float((g - e).abs().max()) / float(qparams_of(node).scale))
    return steps


def _table_of(program, node) -> torch.Tensor:
    name = node.args[1].target
    signature = program.graph_signature
    key = signature.inputs_to_parameters.get(name) or signature.inputs_to_lifted_tensor_constants.get(name)
    return program.state_dict[key] if key in program.state_dict else program.constants[key]


def _output_tables(program) -> list[torch.fx.Node]:
    """The table op behind each output, in output order."""
    (output,) = [n for n in program.graph.nodes if n.op == "output"]
    return [node.args[0] for node in output.args[0]]


def _inputs(seed: int, positive: bool) -> tuple:
    torch.manual_seed(seed)
    return (torch.rand(4, 16) + 0.05 if positive else torch.randn(4, 16) * 2,)


@pytest.mark.parametrize("functions, positive", [(_ANY_INPUT, False), (_POSITIVE_INPUT, True)])
def test_int8_activations_become_tables_equal_to_the_pt2e_model(functions, positive):
    torch.manual_seed(1)
    model, inputs = _Activations(functions).eval(), _inputs(2, positive)
    quantized, program = _lower(model, inputs)
    assert not [n for n in calls(program) if op_name(n.target) in table_op_names()]
    tables = calls(program, _TABLE)
    assert len(tables) == len(functions)
    for node in tables:
        table = _table_of(program, node)
        assert table.dtype == torch.int8 and table.shape == (256,)
    got, expected = program.module()(*inputs), quantized(*inputs)
    for g, e in zip(got, expected):
        assert torch.equal(g, e)  # bit for bit: every table entry is the PT2E model's result for its input


@pytest.mark.parametrize("functions, positive", [(_ANY_INPUT, False), (_POSITIVE_INPUT, True)])
def test_int16_activations_become_tables_within_two_steps(functions, positive):
    torch.manual_seed(1)
    model, inputs = _Activations(functions).eval(), _inputs(3, positive)
    quantized, program = _lower(model, inputs, a16w8=True)
    assert not [n for n in calls(program) if op_name(n.target) in table_op_names()]
    tables = calls(program, _TABLE)
    assert len(tables) == len(functions)
    kinds = {}
    for node in tables:
        table = _table_of(program, node)
        assert node.meta["val"].dtype == torch.int16 and table.dtype == torch.int16
        kinds[node] = _kind(table.numel())
    # Where interpolating stays within two steps the table has 513 entries; the segments it misses (hardswish's kinks,
    # floor's steps, where a clipped output saturates) are patched with their exact results; steps in most segments
    # take the 65536 exact results.
    assert positive or set(kinds.values()) == {"interpolated", "patched", "exact"}
    got, expected = program.module()(*inputs), quantized(*inputs)
    steps = _steps(program, got, expected)
    assert max(steps) <= INT16_TABLE_MAX_LSB + 1e-3
    for node, step in zip(_output_tables(program), steps):
        if kinds[node] == "exact":
            assert step == 0


def _kind(entries: int) -> str:
    if entries == INT16_INTERPOLATED_ENTRIES:
        return "interpolated"
    if entries == INT16_EXACT_ENTRIES:
        return "exact"
    assert is_patched_size(entries)
    return "patched"


def test_patched_int16_tables_are_exact_in_their_segments():
    """hardswish at a16w8: interpolating misses around its kinks, so those segments read the PT2E model's results."""
    torch.manual_seed(3)
    model, inputs = _Activations({"hardswish": F.hardswish}).eval(), (torch.randn(4, 1024) * 2,)
    quantized, program = _lower(model, inputs, a16w8=True)
    (node,) = calls(program, _TABLE)
    table = _table_of(program, node)
    assert is_patched_size(table.numel()) and table.numel() < 4096  # a few segments, not 128 KiB
    slots = table[INT16_INTERPOLATED_ENTRIES:PATCHES_START]
    (got,), (expected,) = program.module()(*inputs), quantized(*inputs)
    scale = float(qparams_of(next(iter(node.users))).scale)
    x = qparams_of(node.args[0]).quantize(inputs[0]).to(torch.int64)
    in_patch = slots[(x + 32768) >> SEGMENT_BITS] >= 0
    assert in_patch.any() and torch.equal(got[in_patch], expected[in_patch])
    assert float((got - expected).abs().max()) / scale <= INT16_TABLE_MAX_LSB + 1e-3


def test_int8_tables_are_the_tosa_lowerings():
    """The table constant is lookup_table_values' (the TOSA INT lowering's) for the node's parameters."""
    torch.manual_seed(5)
    model, inputs = _Activations({"hardswish": F.hardswish}).eval(), _inputs(6, False)
    _, program = _lower(model, inputs)
    (node,) = calls(program, _TABLE)
    (dequantize,) = node.users
    source = qparams_of(node.args[0])  # the model input's quantize
    expected = torch.from_numpy(lookup_table_values(F.hardswish, source, qparams_of(dequantize)))
    assert torch.equal(_table_of(program, node), expected)


class _ConvActivations(torch.nn.Module):
    """conv -> hardswish -> conv -> sigmoid: both tables between NHWC ops."""

    def __init__(self):
        super().__init__()
        self.first = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.second = torch.nn.Conv2d(8, 8, 1)

    def forward(self, x):
        return torch.sigmoid(self.second(F.hardswish(self.first(x))))


def test_tables_between_convolutions_read_nhwc_results():
    torch.manual_seed(7)
    model, inputs = _ConvActivations().eval(), (torch.randn(1, 3, 8, 8),)
    quantized, program = _lower(model, inputs)
    assert len(calls(program, _TABLE)) == 2
    assert len(calls(program, "cortex_m.quantized_conv2d.default")) == 2
    # Only the model's boundaries change layout: the tables read and give NHWC values.
    layout = [
        n for n in calls(program) if op_name(n.target) in ("cortex_m.transpose.default", "aten.permute_copy.default")
    ]
    assert len(layout) == 2
    for node in calls(program, _TABLE):
        assert tuple(node.meta["val"].shape) == (1, 8, 8, 8)
    (got,), (expected,) = program.module()(*inputs), quantized(*inputs)
    assert torch.equal(got, expected)


class _NotLowered(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.float_sigmoid = torch.nn.Sigmoid()  # the quantizer is told to leave these two in float
        self.float_hardswish = torch.nn.Hardswish()

    def forward(self, x, y):
        return self.float_sigmoid(x), self.float_hardswish(y), torch.pow(x, y), F.hardswish(x)


def test_reasons_when_not_lowered_and_only_lowered_ops_kept_whole():
    torch.manual_seed(8)
    inputs = (torch.rand(2, 8) + 0.5, torch.randn(2, 8))
    quantizer = CortexMQuantizer().set_module_type(torch.nn.Sigmoid, None).set_module_type(torch.nn.Hardswish, None)
    _, program = _lower(_NotLowered().eval(), inputs, quantizer=quantizer)
    (sigmoid,) = calls(program, "aten.sigmoid.default")
    assert "not a dequantized" in sigmoid.meta[REASON]
    (power,) = calls(program, "aten.pow.Tensor_Tensor")
    assert "two tensors" in power.meta[REASON]
    # The quantized hardswish was kept whole and became a table; the float one was decomposed (edge lowering keeps
    # only the nodes the pass takes, so none is left without a kernel).
    assert not calls(program, "aten.hardswish.default")
    assert len(calls(program, _TABLE)) == 1
    assert calls(program, "aten.clamp.default")


def test_the_kept_ops_are_the_decomposed_table_ops():
    names = {op_name(op) for op in ops_to_keep_whole()}
    assert {"aten.hardswish.default", "aten.hardsigmoid.default", "aten.silu.default", "aten.mish.default"} <= names
    assert names <= table_op_names()
    assert "aten.glu.default" not in table_op_names()  # its quantized lowering is not one table


def test_eager_op_semantics_and_bad_tables():
    table8 = torch.arange(-128, 128, dtype=torch.int8).flip(0)
    x8 = torch.tensor([-128, -1, 0, 127], dtype=torch.int8)
    assert quantized_table(x8, table8).tolist() == [127, 0, -1, -128]
    table16 = torch.zeros(INT16_INTERPOLATED_ENTRIES, dtype=torch.int16)
    table16[257], table16[258], table16[0] = 100, -101, -32768
    x16 = torch.tensor([64, 65, 192, 193, -32768], dtype=torch.int16)
    assert quantized_table(x16, table16).tolist() == [50, 51, 0, -2, -32767]
    exact = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).flip(0)
    assert quantized_table(torch.tensor([-32768, 0, 32767], dtype=torch.int16), exact).tolist() == [32767, -1, -32767]
    with pytest.raises(ValueError, match="256 entries"):
        quantized_table(x8, torch.zeros(255, dtype=torch.int8))
    patched = torch.cat([table16, torch.full((512,), -1, dtype=torch.int16), torch.arange(128, dtype=torch.int16)])
    patched[513 + 256] = 0  # inputs 0..127 read the patch: out = input
    assert quantized_table(x16, patched).tolist() == [64, 65, 0, -2, -32767]  # 192, 193, -32768 still interpolate
    with pytest.raises(ValueError, match="513, 65536 or 1025"):
        quantized_table(x16, torch.zeros(256, dtype=torch.int16))
    patched[513 + 3] = 1  # only patch 0 exists
    with pytest.raises(ValueError, match="segment slots"):
        quantized_table(x16, patched)
    with pytest.raises(ValueError, match="not int8 or int16"):
        quantized_table(torch.zeros(3), table8)
