"""aten.bmm: TOSA MATMUL directly ([B, M, K] x [B, K, N]); quantized (INT), MATMUL with the
zero points into int32 (int48) and one RESCALE (matmul.quantized_matmul)."""

from etarm.lowering.matmul import MatrixProductVisitor
from etarm.lowering.registry import register


@register
class BmmVisitor(MatrixProductVisitor):
    targets = ("aten.bmm.default",)
    ranks = (3,)
