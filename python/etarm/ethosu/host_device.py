"""The Ethos-U target's device on the host: etarm's NPU model (runtime/ethosu/npu_model), which
executes Vela's command streams for Ethos-U55, U65 and U85 bit-exactly. etarm.runtime's extension links the Ethos-U
delegate itself; installing this device puts the model behind its driver interface for the
accelerator the program was compiled for: etarm's own compile specs name it, and a .pte from
ExecuTorch's Arm backend names it in its Vela flags (``--accelerator-config=...``)."""

from __future__ import annotations

import re

from etarm.errors import EtarmError
from etarm.ethosu.compile_spec import ETHOSU_SPEC_KEY, NPU_TARGETS, EthosUCompileSpec

# The Vela flags ExecuTorch's Arm backend keeps in its compile specs.
_FOREIGN_FLAGS_KEY = "compile_flags"
_ACCELERATOR_FLAG = re.compile(r"--accelerator-config[= ](\S+)")


def accelerator_of(backend_id: str, compile_specs: list) -> str:
    """The Ethos-U configuration (e.g. "ethos-u55-128") a delegate's compile specs were made for."""
    values = {spec.key: spec.value.decode(errors="replace") for spec in compile_specs}
    if ETHOSU_SPEC_KEY in values:
        return EthosUCompileSpec.from_list(compile_specs).target
    match = _ACCELERATOR_FLAG.search(values.get(_FOREIGN_FLAGS_KEY, ""))
    if match is None or match.group(1) not in NPU_TARGETS:
        raise EtarmError(f"the program delegates to {backend_id}, but its compile specs name no Ethos-U configuration")
    return match.group(1)


class NpuModelDevice:
    def install(self, extension, backend_id: str, compile_specs: list) -> None:
        extension.use_npu_model(accelerator_of(backend_id, compile_specs))
