"""FoldQuantizeNodes and ShareQParams on whole edge programs (no partitioning)."""

import torch
from executorch.exir import EdgeCompileConfig, to_edge

from etarm.operators.registry import op_name
from etarm.passes.pass_manager import tosa_pass_pipeline
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.quantizer.pt2e_flow import quantize_program
from etarm.tosa.quant_params import input_qparams, is_dequantize, is_qdq, is_quantize, output_qparams
from etarm.tosa.specification import TosaSpecification

INT = TosaSpecification.create_from_string("TOSA-1.0+INT")


class ConvRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return torch.relu(self.conv(x)).reshape(2, -1) * 2.0


def folded_program():
    torch.manual_seed(0)
    inputs = (torch.randn(2, 3, 5, 5),)
    quantizer = TOSAQuantizer(INT).set_global(get_symmetric_quantization_config())
    quantized = quantize_program(torch.export.export(ConvRelu().eval(), inputs, strict=False), quantizer, [inputs])
    edge = to_edge(torch.export.export(quantized, inputs, strict=False), compile_config=EdgeCompileConfig(_check_ir_validity=False))
    return tosa_pass_pipeline(INT).run(as_partition(edge.exported_program()))


def as_partition(program):
    """The program as the partitioner hands it over: input Q and output DQ nodes on CPU."""
    graph = program.graph
    for n in list(graph.nodes):
        if is_quantize(n) and n.args[0].op == "placeholder":
            n.args[0].meta["val"] = n.meta["val"]  # the placeholder now holds the integers
            n.replace_all_uses_with(n.args[0])
            graph.erase_node(n)
        elif is_dequantize(n) and all(u.op == "output" for u in n.users):
            n.replace_all_uses_with(n.args[0])
            graph.erase_node(n)
    return program


def node(program, name):
    (found,) = [n for n in program.graph.nodes if n.op == "call_function" and op_name(n.target) == name]
    return found


def test_fold_removes_qdq_and_records_parameters():
    program = folded_program()
    assert not [n for n in program.graph.nodes if is_qdq(n)]
    conv = node(program, "aten.convolution.default")
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


def test_fused_relu_and_pass_through_share_parameters():
    program = folded_program()
    conv, relu = node(program, "aten.convolution.default"), node(program, "aten.relu.default")
    view, mul = node(program, "aten.view_copy.default"), node(program, "aten.mul.Tensor")
    relu_out = output_qparams(relu)
    # conv writes with relu's parameters (relu range starts at 0: zero point at qmin).
    assert output_qparams(conv).same_values(relu_out) and input_qparams(relu, 0).same_values(relu_out)
    assert relu_out.zero_point == -128 and conv.meta["val"].dtype == torch.int8
    # reshape keeps them on both sides, and mul reads them.
    assert input_qparams(view, 0).same_values(relu_out) and output_qparams(view).same_values(relu_out)
    assert input_qparams(mul, 0).same_values(relu_out)
    # The lifted 2.0 is an int8 constant representing 2.0 exactly.
    constant = input_qparams(mul, 1)
    assert abs((127 - constant.zero_point) * constant.scale - 2.0) < 1e-6
