"""Vela's estimates as the table ``etarm compile`` prints (no torch or Vela imports)."""

from __future__ import annotations

_COLUMNS = (
    ("part", "{index}"),
    ("cycles", "{cycles_total}"),
    ("NPU cycles", "{cycles_npu}"),
    ("time us", "{time_us:.2f}"),
    ("inf/s", "{inferences_per_second:.0f}"),
    ("MACs", "{macs}"),
    ("SRAM B", "{sram_bytes}"),
    ("flash B", "{flash_bytes}"),
    ("DRAM B", "{dram_bytes}"),
)


def estimates_table(partitions: list[dict]) -> list[str]:
    """One header line naming the NPU configuration, then a row per Ethos-U partition."""
    rows, config = [], None
    for index, part in enumerate(partitions):
        vela = part.get("vela")
        if not vela:
            continue
        config = config or vela
        values = {**vela, "index": index, "time_us": vela["inference_time_s"] * 1e6}
        rows.append([fmt.format(**values) for _, fmt in _COLUMNS])
    if not rows:
        return []
    widths = [max(len(title), *(len(row[i]) for row in rows)) for i, (title, _) in enumerate(_COLUMNS)]
    line = lambda cells: "  ".join(c.rjust(w) for c, w in zip(cells, widths))  # noqa: E731
    header = (
        f"Vela {config['vela_version']} estimates: {config['accelerator']}, {config['system_config']}, "
        f"{config['memory_mode']}, {config['core_clock_hz'] / 1e6:g} MHz"
        # Reports written before direct drive existed have no such key.
        + (", direct drive (COP2; inputs in region 3, outputs in region 4)" if config.get("direct_drive") else "")
    )
    return [header, "  " + line([title for title, _ in _COLUMNS]), *("  " + line(row) for row in rows)]
