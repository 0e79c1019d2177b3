"""The supported-operators table of the README, generated from the visitor registry.

bazel run //python/etarm:supported_ops              # print the table
bazel run //python/etarm:supported_ops -- --update  # rewrite it in README.md
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

import etarm.operators  # noqa: F401  (registers every visitor)
from etarm.lowering.dtype_rules import FP8
from etarm.lowering.registry import registered_targets

BEGIN = "<!-- supported-ops:begin -->"
END = "<!-- supported-ops:end -->"


def table() -> str:
    visitors = registered_targets()
    rows = ["| ATen operator (edge) | TOSA FP | FP extensions | TOSA INT |", "|---|:-:|:-:|:-:|"]
    for target in sorted(visitors):
        visitor = visitors[target]
        fp_cell = "yes" if "FP" in visitor.profiles else ""
        int_cell = ""
        if "INT" in visitor.profiles:
            int_cell = "quantized" if visitor.handles_qparams else "integer data"
        rows.append(f"| `{target}` | {fp_cell} | {_extensions_cell(visitor)} | {int_cell} |")
    fp = sum("FP" in v.profiles for v in visitors.values())
    integer = sum("INT" in v.profiles for v in visitors.values())
    fp8 = sum("fp8" in _extensions_cell(v) for v in visitors.values())
    rows.append("")
    rows.append(
        f"{len(visitors)} edge operators: {fp} for TOSA FP ({fp8} of them also in fp8), {integer} for TOSA INT."
    )
    rows.append("")
    rows.append(
        'INT "quantized": lowered with its own quantization parameters (RESCALE, TABLE, integer '
        'CLAMP). INT "integer data": works on integer tensors, and on quantized tensors whose input '
        "and output share quantization parameters (data movement). FP extensions: the float types of "
        "`TOSA-1.0+FP+bf16`, `+fp8e4m3` and `+fp8e5m2` the operator takes (fp8 stands for both)."
    )
    return "\n".join(rows)


def _extensions_cell(visitor) -> str:
    """The FP extensions' float types a visitor lowers (NodeVisitor.extension_floats)."""
    if "FP" not in visitor.profiles:
        return ""
    names = []
    if torch.bfloat16 in visitor.extension_floats:
        names.append("bf16")
    if FP8 <= visitor.extension_floats:
        names.append("fp8")
    return ", ".join(names)


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
