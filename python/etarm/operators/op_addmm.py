"""aten.addmm: beta * self + alpha * (mat1 @ mat2); MATMUL, then MULs only for beta/alpha != 1.

fp8 (the FP profile's fp8 extensions; linear with a bias): TOSA has no fp8 ADD or MUL, so
the terms add in MATMUL's FP16 result (self CAST to FP16) and the sum rounds to fp8 once, as
torch's float computation rounded to fp8 does, but for the FP16 accumulation.

Quantized (INT, alpha > 0): MATMUL with the zero points into int32 (int48); self is
rescaled onto the product's int32 steps and added (SUB for a negative beta); one RESCALE
writes the output. An int48 product is first rescaled to int32 steps of 2**-10 output
steps (TOSA adds no int48): the intermediate saturates only where a term exceeds 64x
the output range.
"""

import dataclasses
import numbers

import numpy as np
import torch
import tosa_serializer as ts

from etarm.lowering import quantized_products as qp
from etarm.lowering import spatial
from etarm.lowering import tensor_math as tm
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.matmul import batched_matmul, operands_reason, quantized_operands_reason
from etarm.lowering.quantized import FloatAndQuantizedVisitor, rescale
from etarm.lowering.registry import register
from etarm.tosa_ir.quant_params import input_qparams, output_qparams

# Fraction bits (of an output step) an int48 product keeps once rescaled to int32.
_INT48_SUM_FRACTION_BITS = 10
# Largest factor RESCALE applies to an int8 (int16) value: its 32-bit scaling needs the
# value below 2**(shift - 1), so shift >= 9 (16), i.e. scale < 2**22 (2**15); with margin.
_MAX_TERM_FACTOR = {torch.int8: 2.0**20, torch.int16: 2.0**13}


@register
class AddmmVisitor(FloatAndQuantizedVisitor):
    targets = ("aten.addmm.default",)
    extension_floats = EXTENSION_FLOATS

    def float_reason(self, node, spec):
        for name in ("beta", "alpha"):
            if not isinstance(node.kwargs.get(name, 1), numbers.Real):
                return f"{name}={node.kwargs[name]!r} is not a real scalar"
        operands = [("self", node.args[0]), ("mat1", node.args[1]), ("mat2", node.args[2])]
        return operands_reason(node, operands[1:], ranks=(2,)) or operands_reason(node, operands, ranks=(0, 1, 2))

    def quantized_reason(self, node, spec):
        if not node.kwargs.get("alpha", 1) > 0:
            return f"alpha={node.kwargs['alpha']} is not lowered for the INT profile (positive alpha only)"
        matrices = [("mat1", node.args[1]), ("mat2", node.args[2])]
        return quantized_operands_reason(node, matrices) or qp.operand_reason(
            node.args[0], "self", (torch.int8, torch.int16)
        )

    def define_float(self, node, graph):
        beta, alpha = node.kwargs.get("beta", 1), node.kwargs.get("alpha", 1)
        mat1 = graph.value(node.args[1])
        work = spatial.product_dtype(mat1.dtype)  # the operands' type, FP16 for fp8
        product = batched_matmul(graph, mat1, graph.value(node.args[2]), cast_back=False)
        result = tm.scale(graph, tm.cast(graph, product, work), alpha)
        if beta != 0:  # torch ignores self (even NaN/inf in it) when beta is 0
            term = tm.cast(graph, graph.value(node.args[0]), work)
            result = tm.add(graph, result, tm.scale(graph, term, beta))
        tm.bind_result(graph, node, tm.cast(graph, result, mat1.dtype))

    def define_quantized(self, node, graph):
        beta, alpha = node.kwargs.get("beta", 1), node.kwargs.get("alpha", 1)
        mat1, mat2 = graph.value(node.args[1]), graph.value(node.args[2])
        acc = qp.accumulation(node, 1, 2)
        acc = dataclasses.replace(acc, units=acc.units * float(alpha))
        product = batched_matmul(graph, mat1, mat2, acc.zero_points(graph, mat1.dtype, mat2.dtype))
        if beta == 0:
            qp.write_node_output(graph, node, product, acc)
            return
        source = input_qparams(node, 0)
        term_step = float(source.scale) * abs(beta)  # real value of one step of self
        product_step = float(acc.units[0])
        unit = product_step
        if acc.dtype == ts.DType.INT48:
            unit = float(output_qparams(node).scale) / (1 << _INT48_SUM_FRACTION_BITS)
        # Coarser steps where self's would need a larger factor than RESCALE can apply to it.
        unit = max(unit, term_step / _MAX_TERM_FACTOR[source.dtype])
        if unit != product_step or acc.dtype == ts.DType.INT48:
            product = rescale(graph, product, product_step / unit, ts.DType.INT32, scale32=acc.dtype == ts.DType.INT32)
            acc = dataclasses.replace(acc, units=np.array([unit]), dtype=ts.DType.INT32)
        term = graph.to_rank(graph.value(node.args[0]), product.rank)
        term = rescale(graph, term, term_step / unit, ts.DType.INT32, input_zp=int(source.zero_point))
        total = tm.add(graph, product, term) if beta > 0 else tm.sub(graph, product, term)
        qp.write_node_output(graph, node, total, acc)
