"""AnnotatingQuantizer: the PT2E quantizer every target's quantizer derives from.

Each target's quantizer (``TOSAQuantizer`` in etarm/tosa, ``EthosUQuantizer`` in
etarm/ethosu) gives it the TOSA specification it quantizes for and its pipeline, whose
before-annotation passes run in ``transform_for_annotation``::

    quantizer = TOSAQuantizer(TosaCompileSpec("TOSA-1.0+INT"))
    quantizer.set_global(get_symmetric_quantization_config())
    quantizer.set_module_type(torch.nn.Sigmoid, None)     # leave these float
    prepared = prepare_pt2e(torch.export.export(model, inputs).module(), quantizer)

Each op gets the config of the most specific match: a module name
(``set_module_name``, innermost module first), then a module type
(``set_module_type``), then the global config; a None config leaves the op float.
``set_io`` quantizes the model's inputs and outputs themselves. The rules per op
kind live in the ``annotate_*.py`` modules beside this one.
"""

from __future__ import annotations

import torch
from torchao.quantization.pt2e.quantizer import Quantizer

from etarm.errors import EtarmError
from etarm.op_names import op_name
from etarm.quantization import (
    annotate_activation,
    annotate_elementwise,
    annotate_fixed_range,
    annotate_normalization,
    annotate_shared,
    annotate_unary,
    annotate_weighted,
)
from etarm.quantization.annotation import anchor_shared_groups, annotate, is_annotated, is_float_tensor
from etarm.quantization.quantization_config import QuantizationConfig
from etarm.tosa_ir.specification import TosaSpecification

ANNOTATORS = {
    **annotate_shared.ANNOTATORS,
    **annotate_unary.ANNOTATORS,
    **annotate_fixed_range.ANNOTATORS,
    **annotate_activation.ANNOTATORS,
    **annotate_elementwise.ANNOTATORS,
    **annotate_weighted.ANNOTATORS,
    **annotate_normalization.ANNOTATORS,
}
_UNSET = object()


def functional_name(name: str) -> str:
    """'aten.leaky_relu.default' for the in-place 'aten.leaky_relu_.default': an in-place op
    computes what its functional form does, so it is annotated the same way."""
    namespace, _, rest = name.partition(".")
    base, _, overload = rest.partition(".")
    if base.endswith("_") and not base.startswith("_"):
        return f"{namespace}.{base[:-1]}.{overload}"
    return name


def find_annotator(annotators: dict, name: str):
    """The annotator of op ``name``: that of its functional form, and for a ``_copy`` op without
    one of its own, that of the view it copies ('aten.select.int' for 'aten.select_copy.int'):
    models calling torch.select_copy or torch.permute_copy trace to the copy ops, which move
    values as the views do."""
    name = functional_name(name)
    namespace, _, rest = name.partition(".")
    base, _, overload = rest.partition(".")
    if name not in annotators and base.endswith("_copy"):
        name = f"{namespace}.{base[: -len('_copy')]}.{overload}"
    return annotators.get(name)


def _module_path(path: str) -> str:
    """'fc1' from nn_module_stack paths such as 'fc1', "L['self'].fc1" or 'L__self___fc1'."""
    for prefix in ("L['self'].", "L__self___", "L__self__"):
        if path.startswith(prefix):
            return path[len(prefix) :]
    return path


def _type_name(module_type) -> str:
    if isinstance(module_type, str):
        return module_type
    return f"{module_type.__module__}.{module_type.__qualname__}"


class AnnotatingQuantizer(Quantizer):
    """Annotates each op by the rules of the annotate_*.py modules with the config that applies to it.

    ``pipeline``: the target's passes; its before-annotation ones run in ``transform_for_annotation``.
    """

    def __init__(self, tosa_spec: TosaSpecification, pipeline):
        super().__init__()
        self.tosa_spec = tosa_spec
        self.pipeline = pipeline
        self.global_config: QuantizationConfig | None = None
        self.io_config: QuantizationConfig | None = None
        self.module_type_config: dict[str, QuantizationConfig | None] = {}
        self.module_name_config: dict[str, QuantizationConfig | None] = {}
        self.annotators = ANNOTATORS
        self.splits_composites = False  # see split_composites.py

    # --- configuration ----------------------------------------------------------------
    def set_global(self, quantization_config: QuantizationConfig | None) -> "AnnotatingQuantizer":
        self.global_config = quantization_config
        return self

    def set_io(self, quantization_config: QuantizationConfig | None) -> "AnnotatingQuantizer":
        """Quantize the model's inputs and outputs themselves (None: leave them to their ops)."""
        self.io_config = quantization_config
        return self

    def set_module_type(self, module_type: type, quantization_config: QuantizationConfig | None) -> "AnnotatingQuantizer":
        """Ops inside modules of ``module_type`` use this config (None: stay float)."""
        self.module_type_config[_type_name(module_type)] = quantization_config
        return self

    def set_module_name(self, module_name: str, quantization_config: QuantizationConfig | None) -> "AnnotatingQuantizer":
        """Ops inside the submodule at ``module_name`` (e.g. 'blocks.0.fc') use this config."""
        self.module_name_config[module_name] = quantization_config
        return self

    def config_for(self, node: torch.fx.Node) -> QuantizationConfig | None:
        """The config that applies to ``node`` (see the module docstring for precedence)."""
        stack = list((node.meta.get("nn_module_stack") or {}).values())
        for path, _ in reversed(stack):
            config = self.module_name_config.get(_module_path(path), _UNSET)
            if config is not _UNSET:
                return config
        for _, module_type in reversed(stack):
            config = self.module_type_config.get(_type_name(module_type), _UNSET)
            if config is not _UNSET:
                return config
        return self.global_config

    # --- PT2E hooks ---------------------------------------------------------------------
    def transform_for_annotation(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        self.pipeline.annotate(model, self)
        return model

    def annotate(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        for node in model.graph.nodes:
            if node.op != "call_function" or is_annotated(node):
                continue
            annotator = find_annotator(self.annotators, op_name(node.target))
            config = self.config_for(node) if annotator is not None else None
            if config is not None:
                annotator(node, config, self.config_for)
        if self.io_config is not None:
            self._annotate_io(model, self.io_config)
        anchor_shared_groups(model)  # overlapping shared groups would send prepare_pt2e into a cycle
        return model

    def _annotate_io(self, model: torch.fx.GraphModule, config: QuantizationConfig) -> None:
        for node in model.graph.nodes:
            if node.op == "placeholder" and is_float_tensor(node) and node.users:
                annotate(node, {}, config.input_activation)
            elif node.op == "output":
                results = node.args[0] if isinstance(node.args[0], (list, tuple)) else [node.args[0]]
                outputs = {r: config.output_activation for r in results if is_float_tensor(r)}
                annotate(node, outputs, None)

    def validate(self, model: torch.fx.GraphModule) -> None:
        """int16 activations need the int16 extension of an INT-only target."""
        spec = self.tosa_spec
        if spec is None or not spec.supports_int() or spec.supports_fp() or spec.has_extension("int16"):
            return
        for node in model.graph.nodes:
            annotation = node.meta.get("quantization_annotation")
            if annotation is None:
                continue
            specs = list(annotation.input_qspec_map.values()) + [annotation.output_qspec]
            if any(getattr(s, "dtype", None) == torch.int16 for s in specs):
                raise EtarmError(
                    f"{node.name} is quantized to int16, which {spec} does not support: "
                    "use TOSA-1.0+INT+int16 or an int8 config"
                )
