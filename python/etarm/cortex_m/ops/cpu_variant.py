"""cortex_m::cpu_variant: the Cortex-M CPU and CMSIS-NN code path a program was compiled for.

It passes its tensor through unchanged; its kernel refuses to run (an Error) on an image whose
CMSIS-NN path (MVE, DSP or plain C: ``etarm_cmsis_nn_code_path()``) is not the one recorded, so a
program compiled for one CPU and flashed with an image for another fails with both named.
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define

ARGUMENTS = "Tensor self, str cpu, str code_path"


def cpu_variant(x, cpu, code_path):
    return x.clone()


def _fake(x, cpu, code_path):
    return torch.empty_like(x)


define("cpu_variant", ARGUMENTS, cpu_variant, _fake, cmsis_nn=False)
