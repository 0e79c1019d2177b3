"""Compilation targets named on the command line (``-t``) and the partitioner each uses."""

from __future__ import annotations

from executorch.exir.backend.partitioner import Partitioner

from etarm.errors import EtarmError
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa.specification import TosaSpecification

TOSA_TARGETS = ("TOSA-1.0+FP", "TOSA-1.0+INT", "TOSA-1.0+INT+int16")


def known_targets() -> list[str]:
    return list(TOSA_TARGETS)


def make_partitioner(target: str, intermediates_dir: str | None) -> Partitioner:
    if target.upper().startswith("TOSA-"):
        from etarm.tosa.partitioner import TOSAPartitioner

        return TOSAPartitioner(TosaCompileSpec(TosaSpecification.create_from_string(target), intermediates_dir))
    raise EtarmError(f"unknown target '{target}' (known: {', '.join(known_targets())})")


def validate_target(target: str) -> None:
    make_partitioner(target, None)
