"""cortex_m::quantized_maximum: the larger of two int8 tensors (shapes broadcast), in the output's
quantization (quantized_extremum.py has the semantics)."""

import torch

from etarm.cortex_m.ops.quantized_extremum import define_extremum

define_extremum("quantized_maximum", torch.maximum)
