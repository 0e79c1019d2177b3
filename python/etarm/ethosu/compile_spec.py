"""EthosUCompileSpec: an Ethos-U NPU configuration and how Vela is asked to compile for it.

    spec = EthosUCompileSpec("ethos-u55-128")                        # family defaults
    spec = EthosUCompileSpec("ethos-u85-256", system_config="Ethos_U85_SYS_DRAM_High",
                             memory_mode="Shared_Sram", extra_flags=["--optimise", "Size"])

Defaults per NPU family (system config and memory mode of Vela's bundled Arm/vela.ini):

| family | system config                 | memory mode          |
|--------|-------------------------------|----------------------|
| U55    | Ethos_U55_High_End_Embedded   | Shared_Sram          |
| U65    | Ethos_U65_High_End            | Dedicated_Sram_384KB |
| U85    | Ethos_U85_SYS_DRAM_Mid        | Dedicated_Sram_384KB |

U55: Vela's own default (its AXI1 is read-only, so the arena shares the SRAM). U65: a
DRAM system, the arena in DRAM with a 384 KiB SRAM cache (Vela's default memory mode for
U65). U85: Vela's own default.

The TOSA specification of every Ethos-U target is TOSA-1.0+INT+int16: Vela takes the
PRO-INT profile with EXT-INT16 on all three families; which int16 operators a family
runs is decided per operator by the partitioner (etarm/ethosu/operator_support.py).

Ethos-U85 direct drive (``direct_drive=True``, or the Vela flags ExecuTorch's
aot_arm_compiler adds for ``--direct_drive`` in ``extra_flags``): Vela writes a COP2 command
stream whose inputs and outputs live in regions of their own (3 and 4), outside the arena;
docs/payload_formats.md describes the payload.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from typing import Sequence

from executorch.exir.backend.compile_spec_schema import CompileSpec

from etarm.errors import EtarmError
from etarm.ethosu.pipeline import ethosu_pipeline
from etarm.ethosu.vela_config import BUNDLED_CONFIG, WRITABLE_MEMORIES, load_config_file, resolve_config_path
from etarm.passes.base import Pipeline
from etarm.tosa_ir.specification import TosaSpecification

ETHOSU_TOSA_SPEC = "TOSA-1.0+INT+int16"
ETHOSU_SPEC_KEY = "ethosu"
TOSA_SPEC_KEY = "tosa_spec"
INTERMEDIATES_KEY = "intermediates_dir"


@dataclasses.dataclass(frozen=True)
class NpuFamily:
    name: str  # "Ethos-U55"
    key: str  # "u55"
    default_system_config: str
    default_memory_mode: str
    # Whether the NPU can write through its second AXI port (so the arena may live there).
    axi1_writable: bool


FAMILIES = {
    "u55": NpuFamily("Ethos-U55", "u55", "Ethos_U55_High_End_Embedded", "Shared_Sram", axi1_writable=False),
    "u65": NpuFamily("Ethos-U65", "u65", "Ethos_U65_High_End", "Dedicated_Sram_384KB", axi1_writable=True),
    "u85": NpuFamily("Ethos-U85", "u85", "Ethos_U85_SYS_DRAM_Mid", "Dedicated_Sram_384KB", axi1_writable=True),
}

# Target name (its suffix: MACs per cycle) -> NPU family; the configurations Vela 5.2.0 accepts.
NPU_TARGETS = {
    "ethos-u55-32": "u55",
    "ethos-u55-64": "u55",
    "ethos-u55-128": "u55",
    "ethos-u55-256": "u55",
    "ethos-u65-256": "u65",
    "ethos-u65-512": "u65",
    "ethos-u85-128": "u85",
    "ethos-u85-256": "u85",
    "ethos-u85-512": "u85",
    "ethos-u85-1024": "u85",
    "ethos-u85-2048": "u85",
}

# Vela options the compile spec sets itself; extra_flags may not repeat them.
_MANAGED_FLAGS = (
    "--accelerator-config",
    "--config",
    "--system-config",
    "--memory-mode",
    "--output-dir",
    "--output-format",
)
# What direct drive asks of Vela (the flags ExecuTorch's aot_arm_compiler adds for --direct_drive).
DIRECT_DRIVE_FLAGS = ("--separate-io-regions", "--cop-format=COP2")

# Bundled system configs name their family in a prefix (Ethos_U55_..., Ethos_U85_...).
_FAMILY_PREFIX = re.compile(r"^Ethos_(U55|U65|U85)_")


def is_ethosu_target(target: str) -> bool:
    return target.lower().startswith("ethos-u")


# What the Vela backend always passes; extra_flags may repeat it (ExecuTorch's examples do).
_FIXED_FLAGS = {"--output-format": "raw"}


def _flags(extra_flags) -> tuple[str, ...]:
    if extra_flags is None:
        return ()
    flags = shlex.split(extra_flags) if isinstance(extra_flags, str) else [str(f) for f in extra_flags]
    kept = []
    words = iter(flags)
    for flag in words:
        name, has_value, value = flag.partition("=")
        if name in _FIXED_FLAGS:
            value = value if has_value else next(words, "")
            if value == _FIXED_FLAGS[name]:
                continue
        if name in _MANAGED_FLAGS:
            raise EtarmError(
                f"extra_flags may not set {flag}: EthosUCompileSpec sets it (use target, system_config, "
                "memory_mode, config_ini or the intermediates directory instead)"
            )
        kept.append(flag)
    return tuple(kept)


@dataclasses.dataclass
class EthosUCompileSpec:
    target: str
    system_config: str
    memory_mode: str
    extra_flags: tuple[str, ...]
    config_ini: str
    intermediates_dir: str | None = None
    cortex_m_fallback: bool = True

    def __init__(
        self,
        target: str,
        system_config: str | None = None,
        memory_mode: str | None = None,
        extra_flags: "Sequence[str] | str" = (),
        config_ini: str | None = None,
        intermediates_dir: str | None = None,
        cortex_m_fallback: bool = True,
        direct_drive: bool = False,
    ):
        key = target.lower()
        if key not in NPU_TARGETS:
            raise EtarmError(f"unknown Ethos-U target '{target}' (known: {', '.join(NPU_TARGETS)})")
        self.target = key
        self.config_ini = config_ini or BUNDLED_CONFIG
        self.system_config = system_config or self.family.default_system_config
        self.memory_mode = memory_mode or self.family.default_memory_mode
        self.extra_flags = _flags(extra_flags)
        if direct_drive:
            self.extra_flags += tuple(f for f in DIRECT_DRIVE_FLAGS if f not in self.extra_flags)
        self.intermediates_dir = intermediates_dir
        # Quantized ops the NPU rejects run as cortex_m (CMSIS-NN) kernels on the CPU beside it.
        self.cortex_m_fallback = cortex_m_fallback
        self._check_configuration()

    # --- what the target is -----------------------------------------------------------
    @property
    def family(self) -> NpuFamily:
        return FAMILIES[NPU_TARGETS[self.target]]

    @property
    def direct_drive(self) -> bool:
        """Whether Vela puts the inputs and outputs in regions of their own (COP2 stream)."""
        return "--separate-io-regions" in self.extra_flags

    @property
    def macs_per_cycle(self) -> int:
        return int(self.target.rsplit("-", 1)[1])

    @property
    def tosa_spec(self) -> TosaSpecification:
        return TosaSpecification.create_from_string(ETHOSU_TOSA_SPEC)

    @property
    def config_path(self) -> str:
        return resolve_config_path(self.config_ini)

    def core_clock_hz(self) -> float:
        return load_config_file(self.config_path).system_configs[self.system_config].core_clock_hz

    def dump_intermediate_artifacts_to(self, path: str | None) -> "EthosUCompileSpec":
        self.intermediates_dir = path
        return self

    def pipeline(self) -> Pipeline:
        return ethosu_pipeline(self.target, self.family.key, self.tosa_spec, self.cortex_m_fallback)

    # --- checks -------------------------------------------------------------------------
    def _check_configuration(self) -> None:
        config = load_config_file(self.config_path)
        family = self.family
        if self.direct_drive and family.key != "u85":
            raise EtarmError(
                f"direct drive (separate I/O regions) is an Ethos-U85 feature; {self.target} is {family.name}"
            )
        system = config.system_configs.get(self.system_config)
        if system is None:
            raise EtarmError(
                f"system config '{self.system_config}' is not in {self.config_ini} "
                f"(it has: {', '.join(sorted(config.system_configs)) or 'none'})"
            )
        mode = config.memory_modes.get(self.memory_mode)
        if mode is None:
            raise EtarmError(
                f"memory mode '{self.memory_mode}' is not in {self.config_ini} "
                f"(it has: {', '.join(sorted(config.memory_modes)) or 'none'})"
            )
        match = _FAMILY_PREFIX.match(system.name)
        if match and f"Ethos-{match.group(1)}" != family.name:
            fitting = sorted(n for n in config.system_configs if n.startswith(f"Ethos_{family.name[6:]}_"))
            raise EtarmError(
                f"system config '{system.name}' describes an Ethos-{match.group(1)} system, not {self.target} "
                f"({family.name}); use one of: {', '.join(fitting)}"
            )
        if mode.arena_mem_area == "Axi1" and not family.axi1_writable:
            raise EtarmError(
                f"memory mode '{mode.name}' puts the arena (scratch) on AXI1, which is read-only on {family.name}: "
                "use Shared_Sram or Sram_Only"
            )
        arena_memory = config.port_memory(system, mode.arena_mem_area)
        if arena_memory not in WRITABLE_MEMORIES:
            raise EtarmError(
                f"memory mode '{mode.name}' puts the arena (scratch) on {mode.arena_mem_area}, which system config "
                f"'{system.name}' wires to {arena_memory} (read-only): choose a system with DRAM on AXI1 "
                "or the Shared_Sram memory mode"
            )

    # --- Vela ------------------------------------------------------------------------------
    def vela_args(self) -> list[str]:
        """Vela command-line options for this spec (without output options and the network)."""
        return [
            "--accelerator-config",
            self.target,
            "--config",
            self.config_path,
            "--system-config",
            self.system_config,
            "--memory-mode",
            self.memory_mode,
            *self.extra_flags,
        ]

    # --- ExecuTorch's key/value form ----------------------------------------------------
    def to_list(self) -> list[CompileSpec]:
        settings = {
            "target": self.target,
            "system_config": self.system_config,
            "memory_mode": self.memory_mode,
            "extra_flags": list(self.extra_flags),
            "config_ini": self.config_ini,
        }
        specs = [
            CompileSpec(TOSA_SPEC_KEY, str(self.tosa_spec).encode()),
            CompileSpec(ETHOSU_SPEC_KEY, json.dumps(settings, sort_keys=True).encode()),
        ]
        if self.intermediates_dir:
            specs.append(CompileSpec(INTERMEDIATES_KEY, self.intermediates_dir.encode()))
        return specs

    @staticmethod
    def from_list(specs: list[CompileSpec]) -> "EthosUCompileSpec":
        values = {s.key: s.value.decode() for s in specs}
        if ETHOSU_SPEC_KEY not in values:
            raise EtarmError("compile specs hold no Ethos-U settings (not made by EthosUCompileSpec.to_list)")
        settings = json.loads(values[ETHOSU_SPEC_KEY])
        return EthosUCompileSpec(**settings, intermediates_dir=values.get(INTERMEDIATES_KEY))
