"""The one base class of every graph rewrite, the stages a model goes through, and a pipeline.

A model meets the rewrites of its target in this order (``Stage``); each target declares
them in one ``Pipeline`` (``<target>/pipeline.py``), and ``etarm passes -t TARGET``
prints it. Each pass is a small class in a file named after what it does, deriving from
the base of its stage:

- ``AnnotationPass``: the exported model before the quantizer annotates it (PT2E's
  ``transform_for_annotation``);
- ``ProgramPass``: an ExportedProgram before edge lowering, the edge program before
  partitioning (ExecuTorch ``transform_passes``), or one partition before its nodes are
  visited. It is an ExecuTorch pass too, so users can hand it to
  ``to_edge_transform_and_lower(transform_passes=...)``;
- ``TosaPass``: the lowered TOSA graph (clean-up), then the target's own rewrites
  before its backend compiler;
- ``ProgramPass`` again, on the program's CPU part once the partitions are taken
  (``on_cpu_part``): e.g. Ethos-U programs run what the NPU rejects on Cortex-M kernels.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, ClassVar, Sequence

import torch
from executorch.exir._program_utils import _get_updated_graph_signature
from executorch.exir.pass_base import ExportedProgramPassBase, ExportedProgramPassResult, ExportPass
from torch.export import ExportedProgram
from torch.fx.passes.infra.pass_base import PassResult

if TYPE_CHECKING:  # annotations only: a TOSA pass never needs the graph class at run time
    from etarm.tosa_ir.graph import TosaGraph


class Stage(enum.Enum):
    """Where in the compile flow a pass runs, in flow order."""

    BEFORE_ANNOTATION = "before annotation"
    EXPORTED = "exported program"
    EDGE = "edge, before partitioning"
    PARTITION = "partition, before lowering"
    TOSA = "TOSA graph"
    BACKEND = "backend rewrites"
    CPU = "the CPU part, after partitioning"


_FLOW_ORDER = list(Stage)


class Pass:
    """A graph rewrite; ``stage`` says where it runs, its docstring's first line what it does."""

    stage: ClassVar[Stage]

    @classmethod
    def name(cls) -> str:
        """The name of the file that holds the pass (one pass per file), e.g. ``fold_quantize_nodes``."""
        return cls.__module__.rpartition(".")[2]

    @classmethod
    def summary(cls) -> str:
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""


class AnnotationPass(Pass):
    """Rewrites the exported model (an fx GraphModule) before the quantizer annotates it."""

    stage = Stage.BEFORE_ANNOTATION

    def run(self, model: torch.fx.GraphModule, quantizer) -> int:
        """Rewrites ``model`` in place for ``quantizer`` (which says which nodes it quantizes
        how, ``config_for``); returns how many rewrites it made."""
        raise NotImplementedError


class ProgramPass(Pass, ExportPass, ExportedProgramPassBase):
    """Rewrites an ExportedProgram, or a bare GraphModule.

    ExecuTorch's ``transform_passes`` hand an ``ExportedProgramPassBase`` the whole program
    (graph signature, parameters and constants), and any other pass only the graph module:
    given a program a pass can also see which placeholders are user inputs and rewrite lifted
    constants; given a graph module (``PassManager`` style) it returns a ``PassResult``.
    """

    stage = Stage.EDGE

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


class PartitionPass(ProgramPass):
    """Rewrites one partition's program before its nodes are visited."""

    stage = Stage.PARTITION

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        if program is None:
            raise TypeError(f"{type(self).__name__} rewrites an ExportedProgram (it reads its constants), not a GraphModule")
        self.rewrite(program)
        return True  # the graph is linted and the signature refreshed after every partition pass

    def rewrite(self, program: ExportedProgram) -> None:
        raise NotImplementedError


class TosaPass(Pass):
    """Rewrites a lowered TOSA graph in place, keeping its results bit-exact."""

    stage = Stage.TOSA

    def run(self, graph: "TosaGraph") -> int:
        """Returns how many rewrites it made (the report counts the backend's)."""
        raise NotImplementedError


def on_cpu_part(passes: Sequence[ProgramPass]) -> list[ProgramPass]:
    """``passes`` (edge passes) run on what partitioning left on the CPU instead of before it."""
    for program_pass in passes:
        program_pass.stage = Stage.CPU
    return list(passes)


def _finish_graph(graph_module: torch.fx.GraphModule) -> None:
    graph_module.graph.lint()
    graph_module.recompile()


class Pipeline:
    """Every pass one target runs, in flow order; each stage's runner takes its slice."""

    def __init__(self, target: str, passes: Sequence[Pass]):
        stages = [_FLOW_ORDER.index(p.stage) for p in passes]
        if stages != sorted(stages):
            raise ValueError(f"{target}: the pipeline lists its passes out of flow order: {[p.name() for p in passes]}")
        self.target = target
        self.passes = list(passes)

    def stage(self, stage: Stage) -> list[Pass]:
        return [p for p in self.passes if p.stage is stage]

    def annotate(self, model: torch.fx.GraphModule, quantizer) -> dict[str, int]:
        return {p.name(): p.run(model, quantizer) for p in self.stage(Stage.BEFORE_ANNOTATION)}

    def run_program(self, stage: Stage, program: ExportedProgram) -> ExportedProgram:
        for graph_pass in self.stage(stage):
            graph_pass(program)
        return program

    def run_tosa(self, stage: Stage, graph: "TosaGraph") -> dict[str, int]:
        """Runs the TOSA passes of ``stage``; returns how often each one rewrote something."""
        counts = {p.name(): p.run(graph) for p in self.stage(stage)}
        return {name: count for name, count in counts.items() if count}

    def describe(self) -> list[str]:
        """The pipeline as text: each stage, then its passes with what they do."""
        lines = [f"pipeline of {self.target}"]
        for stage in Stage:
            passes = self.stage(stage)
            lines.append(f"{stage.value}:")
            lines += [f"  {p.name():<40} {p.summary()}" for p in passes] or ["  (none)"]
        return lines
