"""Reading .pte files back: the delegate payloads they carry (for tests, tools and reports)."""

from __future__ import annotations

import dataclasses

from executorch.exir._serialize._program import deserialize_pte_binary

from etarm.errors import EtarmError


@dataclasses.dataclass(frozen=True)
class DelegatePayload:
    backend_id: str
    data: bytes


def delegate_payloads(pte: bytes) -> list[DelegatePayload]:
    """Every delegate call's payload, in execution-plan order."""
    try:
        program = deserialize_pte_binary(pte).program
    except Exception as exc:
        raise EtarmError(f"not a readable .pte: {type(exc).__name__}: {exc}") from exc
    payloads = []
    for plan in program.execution_plan:
        for delegate in plan.delegates:
            data = program.backend_delegate_data[delegate.processed.index].data
            payloads.append(DelegatePayload(delegate.id, bytes(data)))
    return payloads
