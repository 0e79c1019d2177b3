"""The model converter's results as the lines ``etarm compile`` prints (no torch or vgfpy imports)."""

from __future__ import annotations


def conversion_lines(partitions: list[dict]) -> list[str]:
    """One line per VGF partition: the .vgf's size and segments, and the converter's time."""
    lines = []
    for index, part in enumerate(partitions):
        vgf = part.get("vgf")
        if not vgf:
            continue
        segments = ", ".join(f"{s['name']} ({s['type']})" for s in vgf["segments"])
        lines.append(
            f"  vgf {index}: {vgf['vgf_bytes']} bytes, {segments}; model-converter {vgf['converter_version']} "
            f"in {vgf['converter_seconds']:.2f} s"
        )
    return lines
