"""quantized_decomposed.quantize_per_tensor inside an INT partition: a requantize.

PT2E quantizes a tensor twice when a consumer needs other parameters than its
producer gave it (e.g. cat's inputs share one set): DQ(a) -> Q(b). After folding
(passes/fold_quantize_nodes.py) such a Q reads an integer tensor and is a RESCALE
from one set of parameters to the other. A Q of a float tensor is not lowered: the
partitioner keeps those on CPU (tosa/quantized_support.py).
"""

from etarm.lowering.quantized import input_qparams, output_qparams, requantize
from etarm.lowering.registry import NodeVisitor, register
from etarm.tosa_ir.quant_params import is_dequantize


@register
class RequantizeVisitor(NodeVisitor):
    targets = ("quantized_decomposed.quantize_per_tensor.default",)
    profiles = frozenset({"INT"})
    handles_qparams = True

    def check(self, node, spec):
        if not is_dequantize(node.args[0]):
            return "quantizes a float tensor (only requantizing an integer tensor is lowered)"
        return None

    def define(self, node, graph):
        source = graph.value(node.args[0])
        requantize(graph, source, input_qparams(node, 0), output_qparams(node), out=graph.out(node))
