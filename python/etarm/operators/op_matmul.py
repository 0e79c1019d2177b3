"""aten.matmul, kept whole: torch.matmul semantics (1-D operands, broadcast batch dims) on MATMUL.

ExecuTorch would otherwise decompose it into expand/clone/view/bmm (or mul+sum for 1-D
operands); whole, a shared right operand folds the left batch into rows with no copies.
Quantized (INT): MATMUL with the zero points into int32 (int48), one RESCALE.
"""

import torch

from etarm.lowering.matmul import MatrixProductVisitor
from etarm.lowering.registry import register


@register
class MatmulVisitor(MatrixProductVisitor):
    targets = ("aten.matmul.default",)
    preserved_ops = (torch.ops.aten.matmul.default,)
    operand_names = ("self", "other")
    ranks = (1, 2, 3, 4, 5, 6)

    def matrices(self, graph, node):
        a, b = super().matrices(graph, node)
        if a.rank == 1:  # a row vector; torch drops the row dim again (bind_result's reshape)
            a = graph.reshape(a, (1,) + a.shape)
        if b.rank == 1:  # a column vector
            b = graph.reshape(b, b.shape + (1,))
        return a, b
