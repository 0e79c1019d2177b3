"""The quantizers of every target and their configs, under the names ExecuTorch's Arm backend uses.

    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from etarm.quantizer import EthosUQuantizer, get_symmetric_quantization_config

    quantizer = EthosUQuantizer("ethos-u55-128").set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(torch.export.export(model, inputs).module(), quantizer)
    prepared(*inputs)                      # calibrate
    quantized = convert_pt2e(prepared)

Each quantizer lives with its target (etarm/tosa, etarm/ethosu, etarm/vgf); what they share is in
etarm/quantization.
"""

from etarm.ethosu.quantizer import EthosUQuantizer
from etarm.quantization.quantization_config import (
    QuantizationConfig,
    get_symmetric_a8w4_quantization_config,
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from etarm.tosa.quantizer import TOSAQuantizer
from etarm.vgf.quantizer import VGFQuantizer, VgfQuantizer

__all__ = [
    "EthosUQuantizer",
    "QuantizationConfig",
    "TOSAQuantizer",
    "VGFQuantizer",
    "VgfQuantizer",
    "get_symmetric_a8w4_quantization_config",
    "get_symmetric_a16w8_quantization_config",
    "get_symmetric_quantization_config",
]
