"""The Ethos-U target family: Vela's command stream for an Ethos-U55/U65/U85 as the payload."""

from __future__ import annotations

from etarm.ethosu.backend import EthosUBackend
from etarm.ethosu.compile_spec import NPU_TARGETS, EthosUCompileSpec
from etarm.ethosu.host_device import NpuModelDevice
from etarm.ethosu.partitioner import EthosUPartitioner
from etarm.ethosu.quantizer import EthosUQuantizer
from etarm.ethosu.report import estimates_table
from etarm.quantization.quantization_config import get_symmetric_quantization_config
from etarm.target_family import TargetFamily, TargetOption


def _compile_spec(target: str, options: dict) -> EthosUCompileSpec:
    return EthosUCompileSpec(
        target,
        system_config=options.get("system_config"),
        memory_mode=options.get("memory_mode"),
        config_ini=options.get("config"),
        cortex_m_fallback=not options.get("no_cortex_m_fallback"),
        direct_drive=bool(options.get("direct_drive")),
    )


def _default_quantizer(spec: EthosUCompileSpec, options: dict) -> EthosUQuantizer:
    """int8 activations and weights: every Ethos-U runs them; int16 is opt-in (set_global)."""
    exact = True if options.get("exact_composites") else None
    return EthosUQuantizer(spec, exact_composites=exact).set_global(get_symmetric_quantization_config())


ETHOS_U = TargetFamily(
    name="Ethos-U",
    targets=tuple(NPU_TARGETS),
    description="Vela's command stream, weights and I/O layout as the Ethos-U delegate payload",
    compile_spec=_compile_spec,
    partitioner=EthosUPartitioner,
    default_quantizer=_default_quantizer,
    options=(
        TargetOption("system_config", "Ethos-U system configuration (Vela)"),
        TargetOption("memory_mode", "Ethos-U memory mode (Vela)"),
        TargetOption("config", "a custom Vela configuration file (vela.ini) holding the system config and memory mode"),
        TargetOption(
            "exact_composites",
            "Ethos-U55/U65: keep layer norm and attention whole (int32 inside) instead of int8 steps",
            switch=True,
        ),
        TargetOption(
            "no_cortex_m_fallback",
            "keep quantized ops the NPU rejects on the portable kernels (in float) instead of cortex_m (CMSIS-NN) kernels",
            switch=True,
        ),
        TargetOption(
            "direct_drive",
            "Ethos-U85 direct drive: a COP2 command stream with the inputs and outputs in regions of their own "
            "(Vela --separate-io-regions --cop-format=COP2)",
            switch=True,
        ),
    ),
    backend_id=EthosUBackend.__name__,
    read_compile_spec=EthosUCompileSpec.from_list,
    host_device=NpuModelDevice,
    summary_lines=lambda report: estimates_table(report["partitions"]),
)
