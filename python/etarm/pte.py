"""Reading .pte files back: the delegate payloads they carry (for tests, tools and reports)."""

from __future__ import annotations

import dataclasses

from executorch.exir._serialize._program import deserialize_pte_binary

from etarm.errors import EtarmError


@dataclasses.dataclass(frozen=True)
class DelegatePayload:
    backend_id: str
    data: bytes
    compile_specs: tuple = ()  # executorch CompileSpec(key, value: bytes), as the partitioner gave them


def _program(pte: bytes):
    try:
        program = deserialize_pte_binary(pte).program
    except Exception as exc:
        raise EtarmError(f"not a readable .pte: {type(exc).__name__}: {exc}") from exc
    if not isinstance(program.execution_plan, list) or not program.execution_plan:
        raise EtarmError("not a readable .pte: it holds no execution plan")
    return program


def delegate_payloads(pte: bytes) -> list[DelegatePayload]:
    """Every delegate call's payload, in execution-plan order."""
    program = _program(pte)
    payloads = []
    for plan in program.execution_plan:
        for delegate in plan.delegates:
            data = program.backend_delegate_data[delegate.processed.index].data
            payloads.append(DelegatePayload(delegate.id, bytes(data), tuple(delegate.compile_specs)))
    return payloads


def cpu_operators(pte: bytes) -> list[str]:
    """The operators the program runs on the CPU (kernels), e.g. 'aten::add.out'."""
    return [
        f"{op.name}.{op.overload}" if op.overload else op.name
        for plan in _program(pte).execution_plan
        for op in plan.operators
    ]
