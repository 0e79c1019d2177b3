"""QuantizePassThroughOutputs: a float program output that only moves dequantized values gets
their Q -> DQ pair, so an INT partition returns integers and the CPU dequantizes them.

The program end to end (its outputs equal the quantized model's): tests/runtime/test_host_runtime.py.
"""

import torch

from etarm.compiler import compile_model
from etarm.passes.base import Stage
from etarm.passes.quantize_pass_through_outputs import QuantizePassThroughOutputs, moved_dequantize
from etarm.quantization.pt2e_flow import quantize_program
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.testing.edge_programs import assert_same_as_module, edge_program, output_nodes
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa_ir.quant_params import is_dequantize, is_quantize

INPUTS = (torch.randn(1, 4, 8, 8, generator=torch.Generator().manual_seed(0)),)


class Squeeze(torch.nn.Module):
    def forward(self, x):
        return torch.ops.aten.squeeze_copy.default(x)


class SqueezeCopyOutput(torch.nn.Module):
    """The quantizer is told to leave the squeeze alone (``int_quantizer``): the output is the
    float DQ(x * 2), squeezed (and cloned by the edge decomposition of squeeze_copy)."""

    def __init__(self):
        super().__init__()
        self.squeeze = Squeeze()

    def forward(self, x):
        return self.squeeze(x * 2), x * 3


def int_quantizer():
    quantizer = TOSAQuantizer("TOSA-1.0+INT").set_global(get_symmetric_quantization_config())
    return quantizer.set_module_type(Squeeze, None)


def quantized(module):
    return quantize_program(torch.export.export(module.eval(), INPUTS, strict=False), int_quantizer(), [INPUTS])


def test_int_targets_get_the_pass():
    def has_it(target):
        return any(isinstance(p, QuantizePassThroughOutputs) for p in TosaCompileSpec(target).pipeline().stage(Stage.EDGE))

    assert has_it("TOSA-1.0+INT") and has_it("TOSA-1.0+INT+int16") and not has_it("TOSA-1.0+FP")


def test_the_moved_output_gets_the_dequantize_parameters():
    model = quantized(SqueezeCopyOutput())
    program = edge_program(model, INPUTS)
    moved = output_nodes(program)[0]
    source = moved_dequantize(moved)
    assert source is not None and not is_dequantize(moved)
    assert QuantizePassThroughOutputs()(program).modified
    dq = output_nodes(program)[0]
    assert is_dequantize(dq) and is_quantize(dq.args[0]) and dq.args[0].args[0] is moved
    assert tuple(dq.args[1:]) == tuple(dq.args[0].args[1:]) == tuple(source.args[1:])
    assert_same_as_module(program, model, INPUTS)  # exact: Q(DQ(q)) == q
    assert not QuantizePassThroughOutputs()(program).modified  # outputs already dequantized stay


def test_outputs_that_are_no_moved_values_stay():
    program = edge_program(torch.nn.Sequential(torch.nn.Flatten()).eval(), INPUTS)  # float model: no DQ
    assert not QuantizePassThroughOutputs()(program).modified


def test_the_partition_returns_integers_and_the_cpu_dequantizes():
    compiled = compile_model(SqueezeCopyOutput(), INPUTS, "TOSA-1.0+INT", quantize=True, quantizer=int_quantizer())
    (partition,) = compiled.report["partitions"]
    assert [o["dtype"] for o in partition["outputs"]] == ["int8", "int8"]
    assert "aten.squeeze_copy.dims" in partition["aten_ops"]
    assert sorted(compiled.report["outputs_from"]) == [[0, 0], [0, 1]]  # both from the partition


def test_without_the_pass_the_moved_output_stays_on_cpu(monkeypatch):
    """A float value leaving an INT partition without a Q is no direct edge: the partition would
    write integers where the program expects floats."""
    monkeypatch.setattr(QuantizePassThroughOutputs, "transform", lambda self, graph_module, program: False)
    compiled = compile_model(SqueezeCopyOutput(), INPUTS, "TOSA-1.0+INT", quantize=True, quantizer=int_quantizer())
    cpu = {entry["op"] for entry in compiled.report["cpu_ops"]}
    assert {"aten.squeeze_copy.dims", "dim_order_ops._clone_dim_order.default"} <= cpu
    for partition in compiled.report["partitions"]:
        assert all(o["dtype"] == "int8" for o in partition["outputs"])
