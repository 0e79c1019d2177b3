"""Compilation targets named on the command line (``-t``) and the partitioner each uses."""

from __future__ import annotations

from executorch.exir.backend.partitioner import Partitioner

from etarm.errors import EtarmError
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa.specification import TosaSpecification

TOSA_TARGETS = ("TOSA-1.0+FP", "TOSA-1.0+INT", "TOSA-1.0+INT+int16")
# Ethos-U NPUs (Vela's accelerator configurations); see etarm/ethosu/compile_spec.py.
ETHOSU_TARGETS = (
    "ethos-u55-32",
    "ethos-u55-64",
    "ethos-u55-128",
    "ethos-u55-256",
    "ethos-u65-256",
    "ethos-u65-512",
    "ethos-u85-128",
    "ethos-u85-256",
    "ethos-u85-512",
    "ethos-u85-1024",
    "ethos-u85-2048",
)


def known_targets() -> list[str]:
    return [*TOSA_TARGETS, *ETHOSU_TARGETS]


def make_partitioner(
    target: str,
    intermediates_dir: str | None,
    system_config: str | None = None,
    memory_mode: str | None = None,
) -> Partitioner:
    """The partitioner of ``target``; ``system_config``/``memory_mode`` are Ethos-U (Vela) settings."""
    if target.lower() in ETHOSU_TARGETS:
        from etarm.ethosu.compile_spec import EthosUCompileSpec
        from etarm.ethosu.partitioner import EthosUPartitioner

        spec = EthosUCompileSpec(target, system_config=system_config, memory_mode=memory_mode)
        return EthosUPartitioner(spec.dump_intermediate_artifacts_to(intermediates_dir))
    if system_config or memory_mode:
        raise EtarmError(f"--system_config and --memory_mode apply to Ethos-U targets only, not '{target}'")
    if target.upper().startswith("TOSA-"):
        from etarm.tosa.partitioner import TOSAPartitioner

        return TOSAPartitioner(TosaCompileSpec(TosaSpecification.create_from_string(target), intermediates_dir))
    raise EtarmError(f"unknown target '{target}' (known: {', '.join(known_targets())})")


def validate_target(target: str, system_config: str | None = None, memory_mode: str | None = None) -> None:
    make_partitioner(target, None, system_config, memory_mode)
