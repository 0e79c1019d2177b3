"""The ordered pass pipeline for each TOSA profile.

A pass is a small class named after what it does; ``run`` rewrites the program's
graph in place. The pipeline is the one place that decides the order.
"""

from __future__ import annotations

from torch.export import ExportedProgram

from etarm.tosa.specification import TosaSpecification


class GraphPass:
    def run(self, program: ExportedProgram) -> None:
        raise NotImplementedError


class PassPipeline:
    def __init__(self, passes: list[GraphPass]):
        self.passes = passes

    def run(self, program: ExportedProgram) -> ExportedProgram:
        for graph_pass in self.passes:
            graph_pass.run(program)
            program.graph_module.graph.lint()
            program.graph_module.recompile()
        return program

    def names(self) -> list[str]:
        return [type(p).__name__ for p in self.passes]


def tosa_pass_pipeline(spec: TosaSpecification) -> PassPipeline:
    """Passes run on every partition before its nodes are visited, in this order."""
    # Imported here: the passes derive from GraphPass above.
    from etarm.passes.fold_batch_norm_into_convolution import FoldBatchNormIntoConvolution

    passes: list[GraphPass] = [FoldBatchNormIntoConvolution()]
    if spec.supports_int() and not spec.supports_fp():
        passes += quantized_passes()
    return PassPipeline(passes)


def quantized_passes() -> list[GraphPass]:
    """INT profile: fold Q/DQ nodes into quantization parameters, then share them along direct edges."""
    # Imported here: the passes derive from GraphPass above.
    from etarm.passes.fold_quantize_nodes import FoldQuantizeNodes
    from etarm.passes.share_qparams import ShareQParams

    return [FoldQuantizeNodes(), ShareQParams()]
