"""FoldQuantizeNodes: Q/DQ nodes leave the partition, their parameters recorded on the ops, which read and write integers."""

import pytest
import torch

from etarm.errors import EtarmError
from etarm.passes.fold_quantize_nodes import FoldQuantizeNodes
from etarm.quantization.pt2e_flow import quantize_program
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.testing.edge_programs import ConvRelu, edge_program, only_call, output_nodes, quantized_partition
from etarm.tosa_ir.quant_params import has_output_qparams, input_qparams, is_qdq, output_qparams

INPUTS = (torch.randn(2, 3, 5, 5, generator=torch.Generator().manual_seed(0)),)


def quantized_conv_relu():
    """ConvRelu as convert_pt2e gives it (int8, calibrated on INPUTS)."""
    torch.manual_seed(0)
    quantizer = TOSAQuantizer("TOSA-1.0+INT").set_global(get_symmetric_quantization_config())
    return quantize_program(torch.export.export(ConvRelu().eval(), INPUTS, strict=False), quantizer, [INPUTS])


def folded_program():
    program = quantized_partition(quantized_conv_relu(), INPUTS)
    assert FoldQuantizeNodes()(program).modified
    return program


def test_fold_removes_qdq_and_records_parameters():
    program = folded_program()
    assert not [n for n in program.graph.nodes if is_qdq(n)]
    conv = only_call(program, "aten.convolution.default")
    activation, weight, bias = (input_qparams(conv, i) for i in range(3))
    assert activation.dtype == torch.int8 and not activation.per_channel
    assert weight.per_channel and weight.axis == 0 and len(weight.scales) == 4 and set(weight.zero_points) == {0}
    assert (weight.qmin, weight.qmax) == (-127, 127)
    assert bias.dtype == torch.int32 and bias.per_channel
    for w, b in zip(weight.scales, bias.scales):
        assert abs(b - float(activation.scale) * w) <= 1e-6 * b
    # The op now reads the integer placeholders directly.
    assert [a.meta["val"].dtype for a in conv.args[:3]] == [torch.int8, torch.int8, torch.int32]
    placeholder = conv.args[0]
    assert placeholder.op == "placeholder" and output_qparams(placeholder).same_values(activation)


def test_quantized_outputs_are_written_by_the_ops():
    program = folded_program()
    relu, mul = only_call(program, "aten.relu.default"), only_call(program, "aten.mul.Tensor")
    # The Q nodes after relu and mul are gone: the ops write integers with their parameters.
    assert relu.meta["val"].dtype == torch.int8 and has_output_qparams(relu)
    assert output_qparams(relu).zero_point == -128  # relu's range starts at 0: zero point at qmin
    assert mul.meta["val"].dtype == torch.int8 and output_nodes(program) == [mul]
    assert [s.arg.name for s in program.graph_signature.output_specs] == [mul.name]
    # conv's output is fused into relu (no Q/DQ between them): FoldQuantizeNodes leaves it to ShareQParams.
    assert not has_output_qparams(only_call(program, "aten.convolution.default"))


def test_lifted_number_is_an_exact_int8_constant():
    constant = input_qparams(only_call(folded_program(), "aten.mul.Tensor"), 1)
    assert constant.dtype == torch.int8
    assert abs((127 - constant.zero_point) * constant.scale - 2.0) < 1e-6  # 2.0 is the int8 maximum


def test_a_partition_input_quantized_inside_the_partition_is_an_error():
    # Without as_partition the input's quantize node is still in the graph.
    program = edge_program(quantized_conv_relu(), INPUTS)
    with pytest.raises(EtarmError, match="quantizes a partition input inside the partition"):
        FoldQuantizeNodes()(program)
