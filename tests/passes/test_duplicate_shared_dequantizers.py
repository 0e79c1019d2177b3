"""DuplicateSharedDequantizersPass: every consumer of a shared dequantize node gets its own copy.

How the partitioner places shared dequantize nodes, with and without the pass:
tests/quantizer/test_partition_robustness.py.
"""

import torch
from torch.fx.passes.infra.pass_base import PassResult

from etarm.passes.base import Stage
from etarm.passes.duplicate_shared_dequantizers import DuplicateSharedDequantizersPass
from etarm.quantization.pt2e_flow import quantize_program
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.testing.edge_programs import edge_program
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa_ir.quant_params import is_dequantize

INPUTS = (torch.randn(2, 8, generator=torch.Generator().manual_seed(0)),)


def quantized_linear(activation, float_activation=True):
    """Linear then ``activation``, int8 but for a float activation: edge decomposition makes
    silu(DQ(x)) sigmoid(DQ(x)) * DQ(x), one DQ read by two ops."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), activation).eval()
    quantizer = TOSAQuantizer("TOSA-1.0+INT").set_global(get_symmetric_quantization_config())
    if float_activation:
        quantizer.set_module_type(type(activation), None)
    return quantize_program(torch.export.export(model, INPUTS, strict=False), quantizer, [INPUTS])


def dequantizers(graph_owner):
    return [n for n in graph_owner.graph.nodes if is_dequantize(n)]


def test_int_targets_get_the_duplication_pass():
    def duplicates(target):
        passes = TosaCompileSpec(target).pipeline().stage(Stage.EDGE)
        return any(isinstance(p, DuplicateSharedDequantizersPass) for p in passes)

    assert duplicates("TOSA-1.0+INT") and duplicates("TOSA-1.0+INT+int16") and not duplicates("TOSA-1.0+FP")


def test_each_consumer_of_a_shared_dequantize_gets_its_own_copy():
    program = edge_program(quantized_linear(torch.nn.SiLU()), INPUTS)
    (shared,) = [n for n in dequantizers(program) if len(n.users) > 1]
    consumers = set(shared.users)
    count = len(dequantizers(program))
    assert DuplicateSharedDequantizersPass()(program).modified
    assert len(dequantizers(program)) == count + len(consumers) - 1
    assert all(len(dq.users) == 1 for dq in dequantizers(program))
    copies = [n.args[0] for n in consumers]
    assert len(set(copies)) == len(consumers) and shared in copies
    assert all((c.target, c.args, c.kwargs) == (shared.target, shared.args, shared.kwargs) for c in copies)


def test_the_copies_compute_the_same_values():
    quantized = quantized_linear(torch.nn.SiLU())
    shared = edge_program(quantized, INPUTS)
    duplicated = edge_program(quantized, INPUTS, [DuplicateSharedDequantizersPass()])
    assert len(dequantizers(duplicated)) > len(dequantizers(shared))
    assert torch.equal(duplicated.module()(*INPUTS), shared.module()(*INPUTS))


def test_dequantize_nodes_read_once_are_left_alone():
    program = edge_program(quantized_linear(torch.nn.ReLU(), float_activation=False), INPUTS)
    before = [(n.name, n.args) for n in dequantizers(program)]
    assert not DuplicateSharedDequantizersPass()(program).modified
    assert [(n.name, n.args) for n in dequantizers(program)] == before


def test_on_a_bare_graph_module_returns_a_pass_result():
    program = edge_program(quantized_linear(torch.nn.SiLU()), INPUTS)
    result = DuplicateSharedDequantizersPass()(program.graph_module)
    assert isinstance(result, PassResult) and result.modified
    assert all(len(dq.users) == 1 for dq in dequantizers(result.graph_module))
