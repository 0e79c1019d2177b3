"""cortex_m::quantized_sub: quantized_add's arithmetic with the difference of the two rescaled operands (TOSA's SUB
between two RESCALEs), int8 or int16 (a16w8), shapes broadcast. CMSIS-NN has no subtraction: the project's kernel."""

from __future__ import annotations

import functools

import torch

from etarm.cortex_m.ops.library import define
from etarm.cortex_m.ops.quantized_add import ARGUMENTS, additive, broadcast_fake

define("quantized_sub", ARGUMENTS, functools.partial(additive, torch.sub), broadcast_fake, cmsis_nn=False)
