"""VgfQuantizer (also VGFQuantizer, its older spelling): the PT2E quantizer for VGF.

    quantizer = VgfQuantizer(VgfCompileSpec("TOSA-1.0+INT")).set_global(get_symmetric_quantization_config())

It quantizes for the INT profile of the compile spec (with its int16 extension, int16
activations are allowed); the annotation rules are the TOSA quantizer's.
"""

from __future__ import annotations

from etarm.errors import EtarmError
from etarm.tosa.quantizer import TOSAQuantizer
from etarm.vgf.compile_spec import VgfCompileSpec


class VgfQuantizer(TOSAQuantizer):
    def __init__(self, compile_spec: "VgfCompileSpec | None" = None):
        compile_spec = compile_spec if compile_spec is not None else VgfCompileSpec()
        if not isinstance(compile_spec, VgfCompileSpec):
            raise EtarmError(f"VgfQuantizer needs a VgfCompileSpec, not {type(compile_spec).__name__}")
        if not compile_spec.tosa_spec.supports_int():
            raise EtarmError(f"VgfQuantizer needs a spec with the INT profile; {compile_spec.tosa_spec} has none")
        super().__init__(compile_spec.with_profile("INT"))


VGFQuantizer = VgfQuantizer
