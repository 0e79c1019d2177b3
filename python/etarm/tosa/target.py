"""The TOSA target family: the TOSA flatbuffer itself is the delegate payload."""

from __future__ import annotations

from etarm.quantization.quantization_config import (
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from etarm.target_family import TargetFamily
from etarm.tosa.backend import TOSABackend
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa.host_device import TosaReferenceDevice
from etarm.tosa.partitioner import TOSAPartitioner
from etarm.tosa.quantizer import TOSAQuantizer


def _default_quantizer(spec: TosaCompileSpec, options: dict) -> TOSAQuantizer:
    """int8, or int16 activations where the profile has the int16 extension."""
    int16 = spec.tosa_spec.has_extension("int16")
    config = get_symmetric_a16w8_quantization_config() if int16 else get_symmetric_quantization_config()
    return TOSAQuantizer(spec).set_global(config)


TOSA = TargetFamily(
    name="TOSA",
    targets=("TOSA-1.0+FP", "TOSA-1.0+INT", "TOSA-1.0+INT+int16"),
    description="a TOSA 1.0 flatbuffer as the delegate payload (runs on the TOSA reference model)",
    compile_spec=lambda target, options: TosaCompileSpec(target),
    partitioner=TOSAPartitioner,
    default_quantizer=_default_quantizer,
    backend_id=TOSABackend.__name__,
    read_compile_spec=TosaCompileSpec.from_list,
    host_device=TosaReferenceDevice,
    # Any TOSA specification string: TosaSpecification says what is wrong with a bad one.
    claims=lambda target: target.upper().startswith("TOSA-"),
)
