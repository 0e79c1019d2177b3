"""PT2E quantization for TOSA INT targets (torchao's prepare_pt2e / convert_pt2e).

    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config

    quantizer = TOSAQuantizer(TosaCompileSpec("TOSA-1.0+INT")).set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(torch.export.export(model, inputs).module(), quantizer)
    prepared(*inputs)                      # calibrate
    quantized = convert_pt2e(prepared)
"""

from etarm.quantizer.quantization_config import (
    QuantizationConfig,
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from etarm.quantizer.tosa_quantizer import EthosUQuantizer, TOSAQuantizer, VgfQuantizer, VGFQuantizer

__all__ = [
    "EthosUQuantizer",
    "QuantizationConfig",
    "TOSAQuantizer",
    "VGFQuantizer",
    "VgfQuantizer",
    "get_symmetric_a16w8_quantization_config",
    "get_symmetric_quantization_config",
]
