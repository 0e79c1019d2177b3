"""The target registry: every target family etarm compiles for, and lookups by ``-t`` name.

Adding a family is one folder with a ``target.py`` declaring its TargetFamily, plus one
line here (docs/adding_a_target.md).
"""

from __future__ import annotations

from typing import Any

from etarm.cortex_m.target import CORTEX_M
from etarm.errors import EtarmError
from etarm.ethosu.target import ETHOS_U
from etarm.target_family import TargetFamily, TargetOption
from etarm.tosa.target import TOSA
from etarm.vgf.target import VGF

FAMILIES: tuple[TargetFamily, ...] = (TOSA, ETHOS_U, VGF, CORTEX_M)


def known_targets() -> list[str]:
    return [target for family in FAMILIES for target in family.targets]


def family_of(target: str) -> TargetFamily:
    for family in FAMILIES:
        if family.owns(target):
            return family
    raise EtarmError(f"unknown target '{target}' (known: {', '.join(known_targets())})")


def family_of_backend(backend_id: str) -> TargetFamily | None:
    """The family whose payloads carry ``backend_id`` in a .pte."""
    return next((family for family in FAMILIES if family.backend_id == backend_id), None)


def all_options() -> list[tuple[TargetFamily, TargetOption]]:
    return [(family, option) for family in FAMILIES for option in family.options]


def checked_options(target: str, options: dict[str, Any] | None) -> dict[str, Any]:
    """``options`` without unset values; an option of another family is a one-line error."""
    family = family_of(target)
    given = {name: value for name, value in (options or {}).items() if value not in (None, False)}
    own = {option.name for option in family.options}
    for name in given:
        if name not in own:
            owners = [f.name for f, option in all_options() if option.name == name]
            where = f"{' and '.join(owners)} targets only" if owners else "no target (unknown option)"
            raise EtarmError(f"--{name} applies to {where}, not '{target}'")
    return given


def compile_spec_for(
    target: str, options: dict[str, Any] | None = None, intermediates_dir: str | None = None, quantize: bool = False
):
    given = checked_options(target, options)
    family = family_of(target)
    make = (quantize and family.quantized_compile_spec) or family.compile_spec
    return make(target, given).dump_intermediate_artifacts_to(intermediates_dir)


def make_partitioner(
    target: str,
    intermediates_dir: str | None = None,
    options: dict[str, Any] | None = None,
    quantize: bool = False,
    additional_checks: list | None = None,
):
    """``additional_checks``: the user's own rules, each ``(node, tosa_spec) -> reason or None``
    (a reason keeps the node on the CPU; the report gives it)."""
    spec = compile_spec_for(target, options, intermediates_dir, quantize)
    return family_of(target).partitioner(spec, additional_checks)


def default_quantizer(target: str, compile_spec, options: dict[str, Any] | None = None):
    return family_of(target).default_quantizer(compile_spec, checked_options(target, options))
