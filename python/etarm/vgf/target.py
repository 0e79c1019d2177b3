"""The VGF target family: the ML SDK model converter's .vgf file as the delegate payload."""

from __future__ import annotations

import shlex

from etarm.quantization.quantization_config import get_symmetric_quantization_config
from etarm.target_family import TargetFamily, TargetOption
from etarm.vgf.backend import VgfBackend
from etarm.vgf.compile_spec import PROFILE_SPECS, TARGET_NAME, VgfCompileSpec
from etarm.vgf.host_device import VgfHostDevice
from etarm.vgf.partitioner import VgfPartitioner
from etarm.vgf.quantizer import VgfQuantizer
from etarm.vgf.report import conversion_lines


def _compile_spec(profile: str):
    """-t vgf lowers float models with TOSA-1.0+FP and quantized ones (-q) with TOSA-1.0+INT,
    as the ExecuTorch Arm backend's aot_arm_compiler does."""

    def make(target: str, options: dict) -> VgfCompileSpec:
        return VgfCompileSpec(PROFILE_SPECS[profile], shlex.split(options.get("converter_flags") or ""))

    return make


VGF = TargetFamily(
    name="VGF",
    targets=(TARGET_NAME,),
    description="a VGF file (Vulkan ML graph from the ML SDK model converter) as the delegate payload",
    compile_spec=_compile_spec("FP"),
    quantized_compile_spec=_compile_spec("INT"),
    partitioner=VgfPartitioner,
    default_quantizer=lambda spec, options: VgfQuantizer(spec).set_global(get_symmetric_quantization_config()),
    options=(
        TargetOption(
            "converter_flags",
            'flags for the ML SDK model converter, as one string: --converter_flags="--emit-debug-info"',
        ),
    ),
    summary_lines=lambda report: conversion_lines(report["partitions"]),
    backend_id=VgfBackend.__name__,
    read_compile_spec=VgfCompileSpec.from_list,
    host_device=VgfHostDevice,
)
