"""What a target family gives the compiler: its ``-t`` names, compile spec, partitioner,
default quantizer, CLI options and report lines. Each family declares one ``TargetFamily``
in its folder's ``target.py``; etarm/targets.py lists them (docs/adding_a_target.md)."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from executorch.exir.backend.partitioner import Partitioner


@dataclasses.dataclass(frozen=True)
class TargetOption:
    """A setting of one family: a keyword of ``compile_model(target_options=...)`` and a CLI flag."""

    name: str  # the keyword, and the flag --<name>
    help: str
    switch: bool = False  # a flag without a value (True when given)

    @property
    def flag(self) -> str:
        return f"--{self.name}"


@dataclasses.dataclass(frozen=True)
class TargetFamily:
    name: str
    targets: tuple[str, ...]  # the -t names it owns, as users spell them (listed in errors and help)
    description: str
    # (target, options) -> the compile spec; options holds only this family's option names.
    compile_spec: Callable[[str, dict[str, Any]], Any]
    partitioner: Callable[..., Partitioner]  # (compile spec, additional_checks) -> partitioner
    # (compile spec, options) -> the PT2E quantizer compile_model uses unless given one.
    default_quantizer: Callable[[Any, dict[str, Any]], Any]
    # The same for a model quantized first (-q), where it differs: one -t name for float and
    # quantized models, each lowered with its own profile (vgf: TOSA FP, or INT with -q).
    quantized_compile_spec: Callable[[str, dict[str, Any]], Any] | None = None
    options: tuple[TargetOption, ...] = ()
    # report -> lines the CLI prints after the partitions (e.g. Vela's estimates).
    summary_lines: Callable[[dict], list[str]] = lambda report: []
    # The delegate id its payloads carry in a .pte, and how its compile spec is read back from
    # the CompileSpec list stored there beside the payload.
    backend_id: str = ""
    read_compile_spec: Callable[[list], Any] | None = None
    # () -> the device `etarm run` (etarm.runtime) runs its payloads on in this process: an
    # object whose install(extension, backend_id, compile_specs) readies etarm.runtime's
    # extension for one delegate (registers a Python device whose load(payload, compile_specs)
    # gives a session with execute(args) -> outputs, or configures a delegate linked into the
    # extension). None when the host has none; no_host_device then says why, in one line.
    host_device: Callable[[], Any] | None = None
    no_host_device: str = ""
    # Whether a -t name is this family's, for families whose names are a grammar (TOSA-1.0+FP+INT);
    # default: one of ``targets``, in any case.
    claims: Callable[[str], bool] | None = None

    def owns(self, target: str) -> bool:
        if self.claims is not None:
            return self.claims(target)
        return target.lower() in (t.lower() for t in self.targets)
