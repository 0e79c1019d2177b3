"""TOSAQuantizer: the PT2E quantizer for TOSA INT targets.

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
from etarm.ethosu.npu_rules import is_u55_class
from etarm.operators.registry import op_name
from etarm.quantizer import (
    annotate_activation,
    annotate_elementwise,
    annotate_fixed_range,
    annotate_normalization,
    annotate_shared,
    annotate_unary,
    annotate_weighted,
)
from etarm.quantizer.annotation import anchor_shared_groups, annotate, is_annotated, is_float_tensor
from etarm.quantizer.lift_scalars import lift_scalar_operands
from etarm.quantizer.quantization_config import QuantizationConfig
from etarm.quantizer.split_composites import split_composites
from etarm.tosa.specification import TosaSpecification

_ANNOTATORS = {
    **annotate_shared.ANNOTATORS,
    **annotate_unary.ANNOTATORS,
    **annotate_fixed_range.ANNOTATORS,
    **annotate_activation.ANNOTATORS,
    **annotate_elementwise.ANNOTATORS,
    **annotate_weighted.ANNOTATORS,
    **annotate_normalization.ANNOTATORS,
}
_UNSET = object()


def _tosa_spec(compile_spec) -> TosaSpecification | None:
    if compile_spec is None:
        return None
    if isinstance(compile_spec, TosaSpecification):
        return compile_spec
    if isinstance(compile_spec, str):
        return TosaSpecification.create_from_string(compile_spec)
    spec = getattr(compile_spec, "tosa_spec", None)
    if isinstance(spec, TosaSpecification):
        return spec
    raise EtarmError(f"TOSAQuantizer needs a compile spec with a TOSA specification, not {type(compile_spec).__name__}")


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


class TOSAQuantizer(Quantizer):
    def __init__(self, compile_spec=None):
        super().__init__()
        self.tosa_spec = _tosa_spec(compile_spec)
        self.global_config: QuantizationConfig | None = None
        self.io_config: QuantizationConfig | None = None
        self.module_type_config: dict[str, QuantizationConfig | None] = {}
        self.module_name_config: dict[str, QuantizationConfig | None] = {}
        self.annotators = _ANNOTATORS
        self.splits_composites = False  # see split_composites.py

    # --- configuration ----------------------------------------------------------------
    def set_global(self, quantization_config: QuantizationConfig | None) -> "TOSAQuantizer":
        self.global_config = quantization_config
        return self

    def set_io(self, quantization_config: QuantizationConfig | None) -> "TOSAQuantizer":
        """Quantize the model's inputs and outputs themselves (None: leave them to their ops)."""
        self.io_config = quantization_config
        return self

    def set_module_type(self, module_type: type, quantization_config: QuantizationConfig | None) -> "TOSAQuantizer":
        """Ops inside modules of ``module_type`` use this config (None: stay float)."""
        self.module_type_config[_type_name(module_type)] = quantization_config
        return self

    def set_module_name(self, module_name: str, quantization_config: QuantizationConfig | None) -> "TOSAQuantizer":
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
        if self.splits_composites:
            split_composites(model, self._int8_activations)
        lift_scalar_operands(model, lambda node: self.config_for(node) is not None)
        return model

    def _int8_activations(self, node: torch.fx.Node) -> bool:
        config = self.config_for(node)
        spec = config.output_activation if config is not None else None
        return spec is not None and spec.dtype == torch.int8

    def annotate(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        for node in model.graph.nodes:
            if node.op != "call_function" or is_annotated(node):
                continue
            annotator = self.annotators.get(op_name(node.target))
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


class EthosUQuantizer(TOSAQuantizer):
    """TOSAQuantizer for an Ethos-U target.

        quantizer = EthosUQuantizer(EthosUCompileSpec("ethos-u55-128"))  # or EthosUQuantizer("ethos-u55-128")
        quantizer.set_global(get_symmetric_quantization_config())          # int8; a16w8 for int16 activations

    The compile spec's TOSA specification (TOSA-1.0+INT+int16) allows int16 activations;
    which int16 ops the NPU family then runs is the partitioner's decision.

    On Ethos-U85, averages (mean, average pools) keep their input's parameters, as TFLite
    does: Vela runs them as one AVG_POOL2D, where the exact sum with a RESCALE into
    separate parameters costs a transpose of the image (measured: a 25x5x64 global pool,
    2835 -> 1358 cycles). The result then has the input's step, which is coarser when
    averaging narrows the range. Ethos-U55/U65 sum in place cheaply and keep separate ones.

    On Ethos-U55/U65, which have no int16 lookups or int16 matrix products, layer and RMS
    norms and unmasked attention are split into their arithmetic with int8 between the
    steps, as TFLite quantizes them (split_composites.py): the exact int32 composites cost
    several times as much there (measured: transformer_block 56852 -> 30484 cycles,
    the same error against the float model). Only int8 ones: int16 steps would need the
    int16 look-ups U55 lacks, while the exact composites run there.
    ``exact_composites=True`` keeps them whole (int32 statistics and softmax weights) on
    any family, False splits them on any; None chooses per family.
    """

    def __init__(self, compile_spec=None, exact_composites: bool | None = None):
        if isinstance(compile_spec, str) and compile_spec.lower().startswith("ethos-u"):
            from etarm.ethosu.compile_spec import EthosUCompileSpec

            compile_spec = EthosUCompileSpec(compile_spec)
        super().__init__(compile_spec)
        self.compile_spec = compile_spec
        family = getattr(compile_spec, "family", None)
        u55_class = family is not None and is_u55_class(family.key)
        self.splits_composites = u55_class if exact_composites is None else not exact_composites
        if family is not None and not u55_class:
            shared = dict.fromkeys(annotate_unary.AVERAGING_OPS, annotate_shared.annotate_shared)
            self.annotators = {**_ANNOTATORS, **shared}


class VGFQuantizer(TOSAQuantizer):
    """TOSAQuantizer for VGF (Vulkan ML) targets."""


VgfQuantizer = VGFQuantizer
