"""ShareQParams: values on edges without Q/DQ (into a fused activation, through a pass-through op) get their neighbours' parameters."""

import torch

from etarm.passes.fold_quantize_nodes import FoldQuantizeNodes
from etarm.passes.share_qparams import ShareQParams
from etarm.quantization.pt2e_flow import quantize_program
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.testing.cpu_fallback import Fn
from etarm.testing.edge_programs import ConvRelu, only_call, quantized_partition
from etarm.tosa_ir.quant_params import flat_args, has_input_qparams, has_output_qparams, input_qparams, output_qparams


def folded(module, inputs):
    """``module``'s INT partition after FoldQuantizeNodes, the pass before ShareQParams."""
    torch.manual_seed(0)
    quantizer = TOSAQuantizer("TOSA-1.0+INT").set_global(get_symmetric_quantization_config())
    quantized = quantize_program(torch.export.export(module.eval(), inputs, strict=False), quantizer, [inputs])
    program = quantized_partition(quantized, inputs)
    FoldQuantizeNodes()(program)
    return program


def folded_conv_relu():
    return folded(ConvRelu(), (torch.randn(2, 3, 5, 5, generator=torch.Generator().manual_seed(0)),))


def test_fused_relu_and_pass_through_share_parameters():
    program = folded_conv_relu()
    conv, relu = only_call(program, "aten.convolution.default"), only_call(program, "aten.relu.default")
    view, mul = only_call(program, "aten.view_copy.default"), only_call(program, "aten.mul.Tensor")
    assert not has_output_qparams(conv) and not has_input_qparams(relu, 0)  # the fused edge: no Q/DQ on it
    ShareQParams()(program)
    relu_out = output_qparams(relu)
    # conv writes with relu's parameters (relu range starts at 0: zero point at qmin).
    assert output_qparams(conv).same_values(relu_out) and input_qparams(relu, 0).same_values(relu_out)
    assert relu_out.zero_point == -128 and conv.meta["val"].dtype == torch.int8
    # reshape keeps them on both sides, and mul reads them.
    assert input_qparams(view, 0).same_values(relu_out) and output_qparams(view).same_values(relu_out)
    assert input_qparams(mul, 0).same_values(relu_out)


def test_reshape_decomposed_into_clone_and_view_shares_its_inner_edge():
    # A reshape of a transposed tensor is clone + view on the edge graph: one Q/DQ pair around both.
    program = folded(Fn(lambda x: (x * 3.0).transpose(1, 2).reshape(2, -1) + 1.0), (torch.randn(2, 3, 4),))
    permute = only_call(program, "aten.permute_copy.default")
    clone = only_call(program, "dim_order_ops._clone_dim_order.default")
    view = only_call(program, "aten.view_copy.default")
    assert not has_output_qparams(clone) and not has_input_qparams(view, 0)
    ShareQParams()(program)
    shared = output_qparams(permute)
    assert output_qparams(clone).same_values(shared) and input_qparams(view, 0).same_values(shared)
    assert clone.meta["val"].dtype == torch.int8


def test_every_tensor_edge_has_parameters_afterwards():
    program = folded_conv_relu()
    ShareQParams()(program)
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        assert has_output_qparams(node), node.name
        assert all(has_input_qparams(node, key) for key, _ in flat_args(node)), node.name


def test_running_again_changes_nothing():
    program = folded_conv_relu()
    ShareQParams()(program)
    before = {n.name: output_qparams(n) for n in program.graph.nodes if n.op == "call_function"}
    ShareQParams()(program)
    after = {n.name: output_qparams(n) for n in program.graph.nodes if n.op == "call_function"}
    assert before.keys() == after.keys() and all(before[k].same_values(after[k]) for k in before)
