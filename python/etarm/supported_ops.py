"""The supported-operators table of the README, generated from the visitor registry.

    bazel run //python/etarm:supported_ops              # print the table
    bazel run //python/etarm:supported_ops -- --update  # rewrite it in README.md
"""

from __future__ import annotations

import argparse
import os
import sys

import etarm.operators  # noqa: F401  (registers every visitor)
from etarm.lowering.registry import registered_targets

BEGIN = "<!-- supported-ops:begin -->"
END = "<!-- supported-ops:end -->"


def table() -> str:

    visitors = registered_targets()
    rows = ["| ATen operator (edge) | TOSA FP | TOSA INT |", "|---|:-:|:-:|"]
    for target in sorted(visitors):
        visitor = visitors[target]
        fp_cell = "yes" if "FP" in visitor.profiles else ""
        int_cell = ""
        if "INT" in visitor.profiles:
            int_cell = "quantized" if visitor.handles_qparams else "integer data"
        rows.append(f"| `{target}` | {fp_cell} | {int_cell} |")
    fp = sum("FP" in v.profiles for v in visitors.values())
    integer = sum("INT" in v.profiles for v in visitors.values())
    rows.append("")
    rows.append(f"{len(visitors)} edge operators: {fp} for TOSA FP, {integer} for TOSA INT.")
    rows.append("")
    rows.append(
        "INT \"quantized\": lowered with its own quantization parameters (RESCALE, TABLE, integer "
        "CLAMP). INT \"integer data\": works on integer tensors, and on quantized tensors whose input "
        "and output share quantization parameters (data movement)."
    )
    return "\n".join(rows)


def replace_table(readme: str, new_table: str) -> str:
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    return readme[:start] + "\n" + new_table + "\n" + readme[end:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite the table in the workspace README.md")
    args = parser.parse_args()
    text = table()
    if not args.update:
        print(text)
        return 0
    path = os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."), "README.md")
    with open(path) as f:
        readme = f.read()
    with open(path, "w") as f:
        f.write(replace_table(readme, text))
    print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
