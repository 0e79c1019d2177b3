"""Writes a corrupted copy of a .pte, for the runner's negative tests.

usage: corrupt_pte.py MODE IN.pte OUT.pte
  truncate      keep the first half of the file
  magic         replace the file identifier "ET12" (bytes 4..7) by "XX12"
  value_index   make the first kernel call's first argument a value index past the end of
                the method's value table (the file stays a well-formed flatbuffer)
"""

import sys


def corrupt(mode: str, data: bytes) -> bytes:
    if mode == "truncate":
        return data[: len(data) // 2]
    if mode == "magic":
        if data[4:8] != b"ET12":
            raise SystemExit("not an ExecuTorch program: no ET12 identifier at byte 4")
        return data[:4] + b"XX12" + data[8:]
    if mode == "value_index":
        # Imported here only: executorch's serializer pulls in torch (seconds of start-up).
        from executorch.exir._serialize._program import deserialize_pte_binary, serialize_pte_binary

        pte = deserialize_pte_binary(data)
        plan = pte.program.execution_plan[0]
        for instruction in plan.chains[0].instructions:
            args = getattr(instruction.instr_args, "args", None)
            if args:
                args[0] = len(plan.values) + 1000
                return bytes(serialize_pte_binary(pte))
        raise SystemExit("the program has no kernel call with arguments")
    raise SystemExit(f"unknown mode {mode!r}")


def main(mode: str, in_path: str, out_path: str) -> None:
    with open(in_path, "rb") as f:
        data = f.read()
    with open(out_path, "wb") as f:
        f.write(corrupt(mode, data))


if __name__ == "__main__":
    main(*sys.argv[1:])
