"""The ``cortex_m::`` operator schemas: what the Cortex-M passes emit and kernels/cortex_m runs,
one op per file (library.py says what each defines). Importing this package defines them all."""

from etarm.cortex_m.ops import quantized_add, quantized_linear, quantized_mul  # noqa: F401  (each defines its op)
from etarm.cortex_m.ops import quantized_sub  # noqa: F401
from etarm.cortex_m.ops import quantized_maximum, quantized_minimum, quantized_softmax  # noqa: F401
from etarm.cortex_m.ops import quantized_conv2d, quantized_depthwise_conv2d, quantized_max_pool2d  # noqa: F401
from etarm.cortex_m.ops import quantized_avg_pool2d, transpose  # noqa: F401
from etarm.cortex_m.ops import quantized_clamp, quantized_grouped_conv2d, quantized_mean_hw  # noqa: F401
from etarm.cortex_m.ops import pad, quantized_softmax_int16  # noqa: F401
from etarm.cortex_m.ops import quantized_table  # noqa: F401
from etarm.cortex_m.ops import cpu_variant  # noqa: F401
from etarm.cortex_m.ops import quantized_bmm  # noqa: F401
from etarm.cortex_m.ops import quantized_transpose_conv2d  # noqa: F401
from etarm.cortex_m.ops.library import NAMESPACE

__all__ = ["NAMESPACE"]
