"""TOSAQuantizer: the PT2E quantizer for the TOSA INT profiles.

    quantizer = TOSAQuantizer(TosaCompileSpec("TOSA-1.0+INT")).set_global(get_symmetric_quantization_config())

The compile spec may also be a TOSA specification or its string; None quantizes for
TOSA-1.0+INT+int16 (int8 or int16 activations). The annotation rules are the
AnnotatingQuantizer's (etarm/quantization); the passes before annotation are the TOSA
pipeline's (pipeline.py).
"""

from __future__ import annotations

from etarm.errors import EtarmError
from etarm.quantization.quantizer import AnnotatingQuantizer
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa_ir.specification import TosaSpecification

_ANY_INT = "TOSA-1.0+INT+int16"


def as_compile_spec(compile_spec) -> TosaCompileSpec:
    """A compile spec with a TOSA specification and a pipeline (any target's), from what users pass."""
    if compile_spec is None:
        return TosaCompileSpec(_ANY_INT)
    if isinstance(compile_spec, (str, TosaSpecification)):
        return TosaCompileSpec(compile_spec)
    if isinstance(getattr(compile_spec, "tosa_spec", None), TosaSpecification) and hasattr(compile_spec, "pipeline"):
        return compile_spec
    raise EtarmError(f"a quantizer needs a compile spec with a TOSA specification, not {type(compile_spec).__name__}")


class TOSAQuantizer(AnnotatingQuantizer):
    def __init__(self, compile_spec=None):
        self.compile_spec = as_compile_spec(compile_spec)
        super().__init__(self.compile_spec.tosa_spec, self.compile_spec.pipeline())
