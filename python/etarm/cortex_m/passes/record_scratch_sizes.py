"""RecordScratchSizes: gives each cortex_m convolution (transposed too) and average pool the scratch bytes CMSIS-NN asks for on the program's code path.

CMSIS-NN's buffer sizes differ between its MVE, DSP and plain C builds (scratch_sizes.py); the compiler knows the
CPU, so the program carries the size its image will need and the kernel checks its own call against it (an Error
when the program's is smaller: a program compiled for another path, or a corrupt one).
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m import scratch_sizes
from etarm.passes.base import ProgramPass

CONV2D = exir_ops.edge.cortex_m.quantized_conv2d.default
DEPTHWISE_CONV2D = exir_ops.edge.cortex_m.quantized_depthwise_conv2d.default
GROUPED_CONV2D = exir_ops.edge.cortex_m.quantized_grouped_conv2d.default
AVG_POOL2D = exir_ops.edge.cortex_m.quantized_avg_pool2d.default
TRANSPOSE_CONV2D = exir_ops.edge.cortex_m.quantized_transpose_conv2d.default
CONV2D_S4 = exir_ops.edge.cortex_m.quantized_conv2d_s4.default
DEPTHWISE_CONV2D_S4 = exir_ops.edge.cortex_m.quantized_depthwise_conv2d_s4.default
# Each op's arguments before scratch_bytes (the s4 ones end with their packed weight's shape).
ARGUMENT_COUNT = {
    CONV2D: 12, DEPTHWISE_CONV2D: 13, GROUPED_CONV2D: 13, AVG_POOL2D: 6, CONV2D_S4: 13, DEPTHWISE_CONV2D_S4: 14,
    TRANSPOSE_CONV2D: 12,
}  # fmt: skip


def _shape(node: torch.fx.Node) -> tuple[int, ...]:
    return tuple(int(d) for d in node.meta["val"].shape)


def scratch_bytes(node: torch.fx.Node, code_path: str) -> int:
    """What CMSIS-NN asks for on ``code_path`` for the convolution (a grouped one: per group) or pool ``node``."""
    if node.target == AVG_POOL2D:
        return scratch_sizes.avgpool(code_path, _shape(node.args[0])[3])
    if node.target == TRANSPOSE_CONV2D:
        s16 = node.args[0].meta["val"].dtype == torch.int16
        kernel_hw = _shape(node.args[2])[1:3]
        return scratch_sizes.transpose_conv(code_path, s16, _shape(node.args[0]), kernel_hw, _shape(node))
    x, _, weight, _, _, _, stride, padding, dilation = node.args[:9]
    n, h, w, c_in = _shape(x)
    if node.target in (CONV2D_S4, DEPTHWISE_CONV2D_S4):
        shape = [int(d) for d in node.args[ARGUMENT_COUNT[node.target] - 1]]  # the unpacked weight's
        if node.target == DEPTHWISE_CONV2D_S4:
            return scratch_sizes.depthwise_conv_wrapper_s4((n, h, w, c_in), shape[1:3], shape[3], dilation)
        return scratch_sizes.convolve_wrapper_s4((n, h, w, c_in), shape[1:3], padding, dilation)
    s16 = x.meta["val"].dtype == torch.int16
    kernel_hw = _shape(weight)[1:3]
    if node.target == DEPTHWISE_CONV2D:
        out_c = _shape(weight)[3]
        return scratch_sizes.depthwise_conv_wrapper(
            code_path, s16, (n, h, w, c_in), kernel_hw, out_c, padding, dilation
        )
    groups = node.args[9] if node.target == GROUPED_CONV2D else 1
    return scratch_sizes.convolve_wrapper(
        code_path, s16, (n, h, w, c_in // groups), kernel_hw, stride, padding, dilation
    )


class RecordScratchSizes(ProgramPass):
    """Sets scratch_bytes of each cortex_m convolution and average pool to CMSIS-NN's size on the given code path."""

    def __init__(self, code_path: str):
        super().__init__()
        if code_path not in scratch_sizes.CODE_PATHS:
            raise ValueError(f"RecordScratchSizes: unknown code path {code_path!r}; known: {scratch_sizes.CODE_PATHS}")
        self.code_path = code_path

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        changed = False
        for node in graph_module.graph.nodes:
            count = ARGUMENT_COUNT.get(node.target) if node.op == "call_function" else None
            if count is not None:
                node.args = (*node.args[:count], scratch_bytes(node, self.code_path))
                changed = True
        return changed
