"""aten.mm: one rank-3 MATMUL ([1, M, K] x [1, K, N]); quantized (INT), MATMUL with the zero
points into int32 (int48) and one RESCALE (matmul.quantized_matmul)."""

from etarm.lowering.matmul import MatrixProductVisitor
from etarm.lowering.registry import register


@register
class MmVisitor(MatrixProductVisitor):
    targets = ("aten.mm.default",)
    ranks = (2,)
