"""EthosUQuantizer: the PT2E quantizer for Ethos-U targets."""

from __future__ import annotations

from etarm.errors import EtarmError
from etarm.ethosu.compile_spec import EthosUCompileSpec
from etarm.ethosu.npu_rules import is_u55_class
from etarm.quantization import annotate_shared, annotate_unary
from etarm.quantization.quantizer import ANNOTATORS
from etarm.tosa.quantizer import TOSAQuantizer


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

    def __init__(self, compile_spec: "EthosUCompileSpec | str", exact_composites: bool | None = None):
        if isinstance(compile_spec, str):
            compile_spec = EthosUCompileSpec(compile_spec)
        if not isinstance(compile_spec, EthosUCompileSpec):
            raise EtarmError(f"EthosUQuantizer needs an EthosUCompileSpec or an Ethos-U target name, not {type(compile_spec).__name__}")
        super().__init__(compile_spec)
        u55_class = is_u55_class(compile_spec.family.key)
        self.splits_composites = u55_class if exact_composites is None else not exact_composites
        if not u55_class:
            shared = dict.fromkeys(annotate_unary.AVERAGING_OPS, annotate_shared.annotate_shared)
            self.annotators = {**ANNOTATORS, **shared}
