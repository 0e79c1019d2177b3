"""INT-profile robustness: shared dequantize nodes, overlapping shared-parameter groups, bool edges.

- A dequantize (DQ) read by several ops (edge decompositions create them) is copied per
  consumer by DuplicateSharedDequantizersPass before partitioning (the pass itself:
  tests/passes/test_duplicate_shared_dequantizers.py); the partitioner never changes the
  graph, and without that pass it keeps a shared DQ's consumers together.
- Overlapping SharedQuantizationSpec groups (maximum(a, b) beside minimum(b, a), cat of
  the same inputs in both orders) used to send prepare_pt2e into endless recursion.
- Bool values (comparison results) carry no quantization parameters: ops reading them
  are delegated whether the comparison runs on CPU or in the partition.

Numerics: ``run_lowered`` runs the lowered edge program as the .pte would, CPU ops in
eager and each delegate's TOSA payload on the reference model, and compares it with
the convert_pt2e'd model in eager (float outputs in LSB of their output scale, bool and
integer outputs exactly).
"""

import operator

import numpy as np
import pytest
import torch
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
from torch.export.graph_signature import InputKind
from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec
from torchao.quantization.pt2e.quantizer.quantizer import Q_ANNOTATION_KEY

from etarm.compiler import compile_model
from etarm.lowering.quantized_support import INPUT_QUANTIZE_REASON, OUTPUT_DEQUANTIZE_REASON
from etarm.op_names import op_name
from etarm.passes.base import Stage
from etarm.quantization.pt2e_flow import quantize_program
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.testing.cpu_fallback import Fn
from etarm.testing.tosa_reference import reference_input
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa.partitioner import TOSAPartitioner
from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir.quant_params import is_dequantize, is_qdq

INT = "TOSA-1.0+INT"
BOUNDARY = {INPUT_QUANTIZE_REASON, OUTPUT_DEQUANTIZE_REASON}


# An op no visitor lowers and the quantizer leaves float: its neighbours decide placement.
@torch.library.custom_op("etarm_robustness::float_only", mutates_args=())
def float_only(x: torch.Tensor) -> torch.Tensor:
    return x * 0.5 + 1


@float_only.register_fake
def _(x):
    return torch.empty_like(x)


def _inputs(*shapes, seed=0):
    torch.manual_seed(seed)
    return tuple(torch.randn(*shape) for shape in shapes)


def _quantizer():
    return TOSAQuantizer(INT).set_global(get_symmetric_quantization_config())


def _quantized_program(module, inputs, quantizer=None):
    """export -> PT2E (calibrated on ``inputs``) -> export: the program the compiler lowers."""
    exported = torch.export.export(module.eval(), inputs, strict=False)
    quantized = quantize_program(exported, quantizer or _quantizer(), [inputs])
    return torch.export.export(quantized, inputs, strict=False), quantized


def _share_dequantizers(program):
    """Merges DQ nodes with equal arguments, as edge decompositions do (silu -> x * sigmoid(x))."""
    graph = program.graph_module.graph
    kept = {}
    for node in list(graph.nodes):
        if not is_dequantize(node):
            continue
        key = (node.target, node.args, tuple(sorted(node.kwargs.items())))
        if key in kept:
            node.replace_all_uses_with(kept[key])
            graph.erase_node(node)
        else:
            kept[key] = node
    program.graph_module.recompile()
    return program


def _our_passes():
    """What compile_model hands to_edge_transform_and_lower for an INT target."""
    return TosaCompileSpec(INT).pipeline().stage(Stage.EDGE)


def _lower(program, transform_passes=None):
    """to_edge_transform_and_lower as a user calls it, with our partitioner."""
    partitioner = TOSAPartitioner(TosaCompileSpec(INT))
    edge = to_edge_transform_and_lower(
        program,
        transform_passes=transform_passes,
        partitioner=[partitioner],
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    return edge.exported_program(), partitioner


_CALL_DELEGATE = torch.ops.higher_order.executorch_call_delegate


def _placed(edge_program):
    """(delegated ops per partition, Q/DQ aside; ops left on CPU)."""
    partitions, cpu = [], []
    for node in edge_program.graph.nodes:
        if node.op == "get_attr" and node.target.startswith("lowered_module"):
            lowered = getattr(edge_program.graph_module, node.target)
            nodes = lowered.original_module.graph.nodes
            partitions.append(sorted(op_name(n.target) for n in nodes if n.op == "call_function" and not is_qdq(n)))
        elif node.op == "call_function" and node.target not in (_CALL_DELEGATE, operator.getitem):
            cpu.append(op_name(node.target))
    return partitions, cpu


class _DelegatesOnReferenceModel(torch.fx.Interpreter):
    def call_function(self, target, args, kwargs):
        if target is _CALL_DELEGATE:
            lowered, *operands = args
            arrays = [reference_input(t) for t in operands]
            return tuple(torch.from_numpy(np.array(o)) for o in run_tosa(lowered.processed_bytes, arrays))
        return super().call_function(target, args, kwargs)


def run_lowered(edge_program, inputs):
    """The lowered program's outputs: CPU ops in eager, delegates on the TOSA reference model."""
    user_inputs = iter(inputs)
    values = []
    for spec in edge_program.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            values.append(next(user_inputs))
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            values.append(edge_program.constants[spec.target])
        else:
            values.append(edge_program.state_dict[spec.target])
    with torch.no_grad():
        return list(_DelegatesOnReferenceModel(edge_program.graph_module).run(*values))


def assert_lowered_matches(edge_program, quantized_model, inputs, max_lsb=1.0):
    """Float outputs within ``max_lsb`` steps of the dequantize they leave through (float
    outputs of CPU ops: of the coarsest dequantize on CPU); bool/integer outputs exact."""
    got = run_lowered(edge_program, inputs)
    with torch.no_grad():
        want = quantized_model(*inputs)
    want = [want] if isinstance(want, torch.Tensor) else list(want)
    assert len(got) == len(want)
    sources = edge_program.graph.output_node().args[0]
    dequantizers = [n for n in edge_program.graph.nodes if is_dequantize(n)]
    cpu_scales = [float(n.args[1]) for n in dequantizers if not isinstance(n.args[1], torch.fx.Node)]
    for index, (g, w, source) in enumerate(zip(got, want, sources)):
        assert (g.dtype, g.shape) == (w.dtype, w.shape), f"output {index}: {g.dtype} {g.shape} != {w.dtype} {w.shape}"
        if not w.dtype.is_floating_point:
            assert torch.equal(g, w), f"output {index} differs"
            continue
        scale = float(source.args[1]) if is_dequantize(source) else max(cpu_scales)
        error = float((g - w).abs().max()) / scale if g.numel() else 0.0
        assert error <= max_lsb + 1e-3, f"output {index} differs by {error:.3f} LSB"


# --- 1. shared dequantize nodes ------------------------------------------------------------------
class _LinearSiLU(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)
        self.act = torch.nn.SiLU()

    def forward(self, x):
        return self.act(self.linear(x))


def _float_silu_quantizer():
    return _quantizer().set_module_type(torch.nn.SiLU, None)


def test_float_silu_after_a_quantized_linear_compiles():
    """The float silu decomposes to x * sigmoid(x): one DQ feeds both; the linear is delegated."""
    torch.manual_seed(0)
    quantizer = _float_silu_quantizer()
    report = compile_model(_LinearSiLU(), _inputs((2, 8)), INT, quantize=True, quantizer=quantizer).report
    assert len(report["partitions"]) == 1 and "aten.linear.default" in report["partitions"][0]["aten_ops"]
    reasons = {entry["op"]: entry["reason"] for entry in report["cpu_ops"] if entry["reason"] not in BOUNDARY}
    assert set(reasons) == {"aten.sigmoid.default", "aten.mul.Tensor"}


@pytest.mark.parametrize("with_passes", [True, False], ids=["default_passes", "no_passes"])
def test_float_silu_lowered_by_hand(with_passes):
    """to_edge_transform_and_lower with our partitioner, with or without our transform passes."""
    torch.manual_seed(0)
    inputs = _inputs((2, 8))
    program, quantized = _quantized_program(_LinearSiLU(), inputs, _float_silu_quantizer())
    edge_program, _ = _lower(program, _our_passes() if with_passes else None)
    partitions, cpu = _placed(edge_program)
    assert partitions == [["aten.linear.default"]]
    assert {"aten.sigmoid.default", "aten.mul.Tensor"} <= set(cpu)
    # silu' <= 1.1: a 1-LSB difference of the linear's output moves the float silu by <= 1.1 LSB.
    assert_lowered_matches(edge_program, quantized, inputs, max_lsb=1.1)


def _add_and_mul(a, b):
    return a + b, a * b


def test_shared_dequantize_with_all_consumers_delegated():
    """Without the pass a DQ read by two delegated ops joins their partition; it folds into both."""
    inputs = _inputs((2, 8), (2, 8))
    program, quantized = _quantized_program(Fn(_add_and_mul), inputs)
    edge_program, partitioner = _lower(_share_dequantizers(program))
    assert _placed(edge_program)[0] == [["aten.add.Tensor", "aten.mul.Tensor"]]
    assert all(reason in BOUNDARY for _op, reason in partitioner.rejections.values())
    assert_lowered_matches(edge_program, quantized, inputs)


def _add_and_float_only(a, b):
    product = a * b  # quantized output: its DQ feeds add and float_only
    return product + b, float_only(product)


def test_shared_dequantize_with_a_cpu_consumer():
    """Without the pass: product's DQ stays on CPU for float_only, so add (reading it too) stays
    on CPU, and so does mul, which shares b's DQ with add. Placement is all or nothing per DQ."""
    inputs = _inputs((2, 8), (2, 8))
    program, quantized = _quantized_program(Fn(_add_and_float_only), inputs)
    edge_program, partitioner = _lower(_share_dequantizers(program))
    reasons = {op: reason for op, reason in partitioner.rejections.values()}
    float_only_node = "etarm_robustness_float_only_default"
    assert f"a dequantize shared with '{float_only_node}', which stays on CPU" in reasons["aten.add.Tensor"]
    assert "a dequantize shared with 'aten_add_tensor', which stays on CPU" in reasons["aten.mul.Tensor"]
    assert _placed(edge_program)[0] == []
    assert_lowered_matches(edge_program, quantized, inputs)
    # With the pass each consumer has its own DQ: add and mul are delegated.
    program, _ = _quantized_program(Fn(_add_and_float_only), inputs)
    edge_program, partitioner = _lower(_share_dequantizers(program), _our_passes())
    assert _placed(edge_program)[0] == [["aten.add.Tensor", "aten.mul.Tensor"]]
    assert_lowered_matches(edge_program, quantized, inputs)


def _split_by_cpu_op(a, b):
    # add_1 and add_2 both read a; add_2 also needs float_only(add_1), which runs on CPU, so no
    # single partition can hold both adds (it would feed itself through the CPU op).
    first = a + b
    return first, float_only(first) + a


def test_shared_dequantize_split_between_partitions():
    inputs = _inputs((2, 8), (2, 8))
    program, quantized = _quantized_program(Fn(_split_by_cpu_op), inputs)
    edge_program, partitioner = _lower(_share_dequantizers(program))
    reasons = [reason for op, reason in partitioner.rejections.values() if op == "aten.add.Tensor"]
    assert len(reasons) == 2 and all("a dequantize shared with ops in other partitions" in r for r in reasons)
    assert_lowered_matches(edge_program, quantized, inputs)
    # With the pass each add reads its own DQ and gets a partition.
    program, _ = _quantized_program(Fn(_split_by_cpu_op), inputs)
    edge_program, _ = _lower(_share_dequantizers(program), _our_passes())
    assert _placed(edge_program)[0] == [["aten.add.Tensor"], ["aten.add.Tensor"]]
    assert_lowered_matches(edge_program, quantized, inputs)


# --- 2. overlapping shared-parameter groups ---------------------------------------------------------
def _reshapes_into_minimum(a, b, c):
    total = (a + b).reshape(8, 2).reshape(2, 8)
    return c.t().t(), total, torch.minimum(total, c), torch.minimum(c.reshape(8, 2).reshape(2, 8), c)


OVERLAPPING = {
    "maximum_minimum": lambda a, b: (torch.maximum(a, b), torch.maximum(a, b * 2), torch.minimum(b, a)),
    "cat": lambda a, b: (torch.cat([a, b]), torch.cat([a, b * 2]), torch.cat([b, a])),
    "cat_scaled_first": lambda a, b: (torch.cat([a, b]), torch.cat([b * 2, a]), torch.cat([b, a])),
    "stack_maximum_cat": lambda a, b: (torch.stack([a, b]), torch.maximum(a, b * 2), torch.cat([b, a])),
    "reshapes_into_minimum": _reshapes_into_minimum,
}


def _assert_one_partition_matches(fn, quantizer=None):
    """Every op in one partition (Q/DQ of its inputs and outputs aside), within 1 LSB.

    (run_lowered maps outputs through the graph: a partition may order them differently.)
    """
    inputs = _inputs(*[(2, 8)] * fn.__code__.co_argcount)
    program, quantized = _quantized_program(Fn(fn), inputs, quantizer)
    edge_program, partitioner = _lower(program, _our_passes())
    assert len(_placed(edge_program)[0]) == 1
    assert all(reason in BOUNDARY for _op, reason in partitioner.rejections.values()), partitioner.rejections
    assert_lowered_matches(edge_program, quantized, inputs)


@pytest.mark.parametrize("fn", OVERLAPPING.values(), ids=OVERLAPPING.keys())
def test_overlapping_shared_groups_compile(fn):
    """Shared ops whose input sets overlap in different orders: one group, exact integer lowering."""
    _assert_one_partition_matches(fn)


def test_overlapping_shared_groups_with_quantized_model_io():
    """set_io gives the inputs output specs after the ops are annotated: more keys per group to anchor."""
    quantizer = _quantizer().set_io(get_symmetric_quantization_config())
    _assert_one_partition_matches(OVERLAPPING["maximum_minimum"], quantizer)


def test_every_shared_spec_points_at_its_group_anchor():
    """After annotation each shared spec names a key whose own spec is not shared (no chains,
    so prepare_pt2e's union-find cannot loop)."""
    model = torch.export.export(Fn(OVERLAPPING["cat"]), _inputs((2, 8), (2, 8)), strict=False).module()
    quantizer = _quantizer()
    quantizer.annotate(model)
    specs = {}
    for node in model.graph.nodes:
        annotation = node.meta.get(Q_ANNOTATION_KEY)
        if annotation is not None:
            specs.update({(arg, node): spec for arg, spec in annotation.input_qspec_map.items()})
            specs[node] = annotation.output_qspec
    shared = [spec for spec in specs.values() if isinstance(spec, SharedQuantizationSpec)]
    assert shared and all(not isinstance(specs[spec.edge_or_node], SharedQuantizationSpec) for spec in shared)
    prepare_pt2e(model, quantizer)  # recursed forever before


# --- 3. bool edges ----------------------------------------------------------------------------------
BOOL_OPS = {
    "any": lambda x, y: (x > 0).any(),
    "any_dim": lambda x, y: (x > 0).any(dim=-1),
    "logical_and": lambda x, y: torch.logical_and(x > 0, y < 0).any(dim=0),
    "logical_or_not": lambda x, y: torch.logical_not(torch.logical_or(x > 0.5, y <= x)),
    "logical_xor": lambda x, y: torch.logical_xor(x >= 0, y != 0),
    "where_of_masks": lambda x, y: torch.where(x > 0, y > 0, x < y),
}


@pytest.mark.parametrize("fn", BOOL_OPS.values(), ids=BOOL_OPS.keys())
def test_bool_ops_after_comparisons(fn):
    """Comparisons of quantized floats and the bool ops after them run in one partition."""
    inputs = _inputs((3, 8), (3, 8))
    program, quantized = _quantized_program(Fn(fn), inputs)
    edge_program, partitioner = _lower(program, _our_passes())
    reasons = {op: reason for op, reason in partitioner.rejections.values()}
    assert not any("shares quantization parameters" in r for r in reasons.values()), reasons
    (partition,) = _placed(edge_program)[0]
    assert any(op.startswith(("aten.gt", "aten.lt", "aten.ge", "aten.le", "aten.ne")) for op in partition)
    assert_lowered_matches(edge_program, quantized, inputs)


def _mixed(a, b):
    total = a + b  # quantized
    mask = torch.logical_not(a > 0).any(dim=-1, keepdim=True)  # bool, from comparing quantized a
    return total, mask


def test_bool_and_quantized_values_side_by_side():
    inputs = _inputs((2, 8), (2, 8))
    program, quantized = _quantized_program(Fn(_mixed), inputs)
    edge_program, partitioner = _lower(program, _our_passes())
    delegated = sorted(op for partition in _placed(edge_program)[0] for op in partition)
    assert delegated == ["aten.add.Tensor", "aten.any.dim", "aten.gt.Scalar", "aten.logical_not.default"]
    assert_lowered_matches(edge_program, quantized, inputs)


def test_int32_comparisons_in_the_partition():
    """Integer comparisons have an INT lowering: comparison and bool ops share a partition."""
    torch.manual_seed(0)
    ids = torch.randint(-5, 5, (3, 6), dtype=torch.int32)
    fn = Fn(lambda ids: torch.logical_and(ids > 0, ids < 3).any(dim=1))
    program, quantized = _quantized_program(fn, (ids,))
    edge_program, _ = _lower(program, _our_passes())
    partitions, cpu = _placed(edge_program)
    assert cpu == [] and len(partitions) == 1
    assert_lowered_matches(edge_program, quantized, (ids,))
