"""Base for edge passes that run on an ExportedProgram or on a bare GraphModule.

ExecuTorch's ``transform_passes`` hand an ``ExportedProgramPassBase`` the whole program
(graph signature, parameters and constants), and any other pass only the graph module.
Passes deriving from ``ProgramPass`` accept both: given a program they can also see
which placeholders are user inputs and rewrite lifted constants; given a graph module
(``PassManager`` style) they return a ``PassResult``.
"""

from __future__ import annotations

import torch
from executorch.exir._program_utils import _get_updated_graph_signature
from executorch.exir.pass_base import ExportedProgramPassBase, ExportedProgramPassResult, ExportPass
from torch.export import ExportedProgram
from torch.fx.passes.infra.pass_base import PassResult


class ProgramPass(ExportPass, ExportedProgramPassBase):
    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        """Rewrites ``graph_module`` in place (``program`` is None for a bare graph module); True if changed."""
        raise NotImplementedError

    def __call__(self, target):
        return self.call(target)

    def call(self, target):
        if isinstance(target, ExportedProgram):
            modified = self.transform(target.graph_module, target)
            if modified:
                _finish_graph(target.graph_module)
                # Inserted nodes may now feed the output: output specs name output nodes.
                target._graph_signature = _get_updated_graph_signature(target.graph_signature, target.graph_module)
            return ExportedProgramPassResult(target, modified)
        modified = self.transform(target, None)
        if modified:
            _finish_graph(target)
        return PassResult(target, modified)


def _finish_graph(graph_module: torch.fx.GraphModule) -> None:
    graph_module.graph.lint()
    graph_module.recompile()
