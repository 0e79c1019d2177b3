"""CortexMQuantizer: the PT2E quantizer for Cortex-M, a8w8 (int8 activations and weights) by default.

    quantizer = CortexMQuantizer().set_global(get_symmetric_quantization_config())
    quantizer = CortexMQuantizer().set_global(get_symmetric_a16w8_quantization_config())  # int16 activations

The annotation rules are the shared ones (etarm/quantization), for TOSA-1.0+INT+int16. Ops with CMSIS-NN s16
kernels run a16w8 models as cortex_m ops; the others stay portable (docs/cortex_m.md lists which).
"""

from __future__ import annotations

from etarm.cortex_m.compile_spec import CortexMCompileSpec
from etarm.errors import EtarmError
from etarm.quantization.annotate_shared import annotate_shared
from etarm.quantization.quantization_config import get_symmetric_quantization_config
from etarm.quantization.quantizer import AnnotatingQuantizer


class CortexMQuantizer(AnnotatingQuantizer):
    def __init__(self, compile_spec: CortexMCompileSpec | None = None):
        compile_spec = compile_spec if compile_spec is not None else CortexMCompileSpec()
        if not isinstance(compile_spec, CortexMCompileSpec):
            raise EtarmError(f"CortexMQuantizer needs a CortexMCompileSpec, not {type(compile_spec).__name__}")
        self.compile_spec = compile_spec
        super().__init__(compile_spec.tosa_spec, compile_spec.pipeline())
        # CMSIS-NN's average pool does not rescale: its output keeps the input's parameters (an average stays within
        # its inputs' range), as for a max pool.
        self.annotators = {
            **self.annotators,
            "aten.avg_pool1d.default": annotate_shared,
            "aten.avg_pool2d.default": annotate_shared,
        }
        self.set_global(get_symmetric_quantization_config())
