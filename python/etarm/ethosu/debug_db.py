"""Vela's debug database (``--enable-debug-db``: ``<name>_debug.xml``): for every NPU operation
of the command stream, the TOSA operator it implements and Vela's estimates for it.

The database names TOSA operators by their position in the flatbuffer, CONST operators
included; etarm numbers a partition's operators without them (``tosa_ops``, the debug map).
"""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ElementTree

from tosa.Op import Op
from tosa.TosaGraph import TosaGraph


def _tables(xml_path: str) -> dict[str, list[dict[str, str]]]:
    root = ElementTree.parse(xml_path).getroot()
    return {
        table.get("name"): list(csv.DictReader(io.StringIO((table.text or "").strip())))
        for table in root.iter("table")
    }


def _operator_numbers(flatbuffer: bytes) -> dict[int, int]:
    """Flatbuffer operator position -> etarm's number for it (its position among non-CONST operators)."""
    block = TosaGraph.GetRootAs(flatbuffer, 0).Regions(0).Blocks(0)
    positions = [i for i in range(block.OperatorsLength()) if block.Operators(i).Op() != Op.CONST]
    return {position: number for number, position in enumerate(positions)}


def npu_operations(xml_path: str, flatbuffer: bytes) -> list[dict]:
    """Per NPU operation, in the order Vela scheduled them: Vela's operator, the TOSA operator
    it implements (``tosa_op_index``, None for one Vela added), where its commands start in
    the command stream (byte offset; None when Vela chained it into the operation before, on
    Ethos-U85) and its estimated cycles and MACs."""
    tables = _tables(xml_path)
    source_positions = {row["id"]: int(row["ext_key"]) for row in tables.get("source", [])}
    command_offsets = {row["scheduled_id"]: int(row["offset"]) for row in tables.get("queue", [])}
    numbers = _operator_numbers(flatbuffer)
    operations = []
    for row in tables.get("perf", []):
        position = source_positions.get(row["source_id"])
        operations.append(
            {
                "npu_op": int(row["id"]),
                "operator": row["operator"],
                "tosa_op_index": numbers.get(position) if position is not None else None,
                "command_offset": command_offsets.get(row["id"]),
                "cycles": int(row["op_cycles"]),
                "npu_cycles": int(row["npu_cycles"]),
                "macs": int(row["mac_count"]),
            }
        )
    return operations
