"""Writes what an Ethos-U .pte's delegate carries, as the runtime tests expect it.

usage: extract_ethosu_payload.py MODEL.pte REPORT.json PAYLOAD.bin CMD.bin WEIGHTS.bin IO.txt

The .pte must hold exactly one EthosUBackend delegate. PAYLOAD.bin is its whole payload,
CMD.bin / WEIGHTS.bin its cmd_data / weight_data blocks (read with etarm's own payload
reader, python/etarm/ethosu/payload.py), IO.txt one line per fact:
    scratch_size N | fast_scratch_size N
    input|output INDEX DTYPE offset OFFSET region REGION nbytes NBYTES scale S zero_point Z
(scale and zero point from the compile report's partition entry).
"""

import json
import sys

from etarm.ethosu.payload import EthosUPayload
from etarm.pte import delegate_payloads


def main(pte_path, report_path, payload_path, cmd_path, weights_path, io_path):
    with open(pte_path, "rb") as f:
        payloads = [p for p in delegate_payloads(f.read()) if p.backend_id == "EthosUBackend"]
    if len(payloads) != 1:
        sys.exit(f"{pte_path}: {len(payloads)} EthosUBackend delegates, expected 1")
    with open(report_path) as f:
        partitions = [p for p in json.load(f)["partitions"] if p["backend"] == "EthosUBackend"]
    data = payloads[0].data
    payload = EthosUPayload.from_bytes(data)
    for path, content in ((payload_path, data), (cmd_path, payload.cmd_data), (weights_path, payload.weight_data)):
        with open(path, "wb") as f:
            f.write(content)
    lines = [f"scratch_size {payload.scratch_size}", f"fast_scratch_size {payload.fast_scratch_size}"]
    for kind, placements, described in (
        ("input", payload.inputs, partitions[0]["inputs"]),
        ("output", payload.outputs, partitions[0]["outputs"]),
    ):
        for i, (placement, entry) in enumerate(zip(placements, described, strict=True)):
            lines.append(
                f"{kind} {i} {placement.dtype} offset {placement.offset} region {placement.region} "
                f"nbytes {placement.nbytes} scale {entry['scale']!r} zero_point {entry['zero_point']}"
            )
    with open(io_path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
