"""Writes a copy of a .pte whose cortex_m convolutions record one scratch byte fewer than the compiler computed (the
ones that need any): a program that asks its kernels for too little scratch, which must fail with an Error.

usage: shrink_scratch.py IN.pte OUT.pte
"""

import sys

from executorch.exir._serialize._program import deserialize_pte_binary, serialize_pte_binary

CONVOLUTIONS = {
    "cortex_m::quantized_conv2d",
    "cortex_m::quantized_depthwise_conv2d",
    "cortex_m::quantized_grouped_conv2d",
}


def main(source: str, destination: str) -> int:
    with open(source, "rb") as f:
        pte = deserialize_pte_binary(f.read())
    plan = pte.program.execution_plan[0]
    shrunk = 0
    for chain in plan.chains:
        for instruction in chain.instructions:
            call = instruction.instr_args
            if not hasattr(call, "op_index") or plan.operators[call.op_index].name not in CONVOLUTIONS:
                continue
            scratch = plan.values[call.args[-3]].val  # the arguments end with scratch_bytes, out, and out again
            if scratch.int_val > 0:
                scratch.int_val -= 1
                shrunk += 1
    if not shrunk:
        print(f"shrink_scratch: {source} has no cortex_m convolution that needs scratch", file=sys.stderr)
        return 1
    with open(destination, "wb") as f:
        f.write(bytes(serialize_pte_binary(pte)))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
