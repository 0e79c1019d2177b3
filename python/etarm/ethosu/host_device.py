"""The Ethos-U target's device on the host: etarm's NPU model (runtime/ethosu/npu_model), which
executes Vela's command streams bit-exactly. etarm.runtime's extension links the Ethos-U
delegate itself; installing this device puts the model behind its driver interface for the
accelerator the program was compiled for."""

from __future__ import annotations

from etarm.errors import EtarmError
from etarm.ethosu.compile_spec import EthosUCompileSpec

# The NPU families the model executes (U85's command streams are not modelled yet).
MODELLED_FAMILIES = ("u55", "u65")


class NpuModelDevice:
    def install(self, extension, backend_id: str, compile_specs: list) -> None:
        spec = EthosUCompileSpec.from_list(compile_specs)
        if spec.family.key not in MODELLED_FAMILIES:
            raise EtarmError(
                f"the program delegates to {backend_id} for {spec.target}: etarm's NPU model runs Ethos-U55/U65 "
                "command streams only so far; run it in a firmware image on a board or a simulator"
            )
        extension.use_npu_model(spec.target)
