"""Firmware footprint: code and data of each firmware image by component, and instructions per inference.

For every image (an ELF plus its GNU ld map, from footprint_image in benchmarks/footprint.bzl):

- **Size.** Every input section the linker placed in an allocated output section is listed
  in the map with its size and the archive member it came from; the archive's path says
  which component it belongs to (runtime core, kernels, runner, platform, C/C++ libraries,
  the embedded model). Its kind (text, rodata, data, bss) comes from the input section's
  name. Alignment fill and linker-made words are counted as "linker". The sum per output
  section is checked against the ELF's section headers, so nothing goes unattributed.
- **Instructions.** The image runs on qemu-system-arm -M mps3-an547 with `-icount shift=0`:
  the virtual clock then advances 1 ns per executed instruction. The runner reports the
  cycles of `execute()` from etarm_cycles() (SysTick at the board's CPU clock, which QEMU
  drives from the virtual clock), so instructions = cycles * 1e9 / cpu_hz, to within one
  SysTick period (1e9 / cpu_hz instructions, 31 at 32 MHz). A calibration image times a
  loop of known length the same way and must give its instruction count back.

    ./bazelw run //benchmarks:footprint [-- --json out.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import re
import subprocess
import sys

from benchmarks.benchmark_results import default_json_path, write_json

READELF = "arm-none-eabi-readelf"
QEMU = "qemu-system-arm"
QEMU_MACHINE = "mps3-an547"
ICOUNT = "shift=0,align=off,sleep=off"

KINDS = ("text", "rodata", "data", "bss")
# Components in table order; the path rules that pick them are in component_of().
COMPONENTS = ("runtime core", "kernels", "runner", "platform", "C/C++ libraries", "model", "linker", "other")
# The goal of issue 5: the runtime core alone, without kernels, under 32 KiB of .text.
CORE_TEXT_BUDGET = 32 * 1024


@dataclasses.dataclass
class Image:
    name: str
    elf: str
    map_file: str


def component_of(path: str, section: str) -> str:
    """The component an input section belongs to, from the file the map names."""
    if section.startswith(".etarm.model") or re.search(r"/lib[^/]*_fw_model\.(lo|a)\(", path + "("):
        return "model"
    if path in ("linker stubs", "") or path.startswith(("LONG", "SHORT", "BYTE", "QUAD")):
        return "linker"
    if "/bin/runtime/core/" in path:
        return "runtime core"
    if "/bin/kernels/" in path:
        return "kernels"
    if "/bin/runtime/runner/" in path:
        return "runner"
    if "/bin/runtime/platform/" in path:
        return "platform"
    if path.startswith("/"):  # the toolchain's libc, libm, libstdc++, libgcc, crt objects
        return "C/C++ libraries"
    return "other"


def kind_of(input_section: str, output_section: str) -> str | None:
    """text/rodata/data/bss of an input section (None: not counted, e.g. the arena)."""
    name = input_section or output_section
    if output_section.startswith(".etarm.arena"):
        return None  # the runner's static arena: reported on its own
    if name.startswith((".text", ".etarm.fast_code", ".glue_7", ".vfp11_veneer", ".v4_bx")):
        return "text"
    if name.startswith((".data", ".tdata", ".igot", ".got", ".etarm.fast_data")):
        return "data"
    if name.startswith((".bss", ".tbss", "COMMON", ".etarm.ddr_bss")):
        return "bss"
    return "rodata"  # .rodata*, vectors, init/fini arrays, unwind tables, the model


def allocated_sections(elf: str) -> dict[str, int]:
    """Allocated output sections of the ELF and their sizes (section headers)."""
    out = subprocess.run([READELF, "-SW", elf], check=True, capture_output=True, text=True).stdout
    sections = {}
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)", line)
        if m and "A" in m.group(3):
            sections[m.group(1)] = int(m.group(2), 16)
    return sections


@dataclasses.dataclass
class Piece:
    """One input section (or fill, or linker data) placed in an output section."""

    output: str
    section: str
    path: str
    size: int
    size_before_merge: int | None = None  # merged sections (strings, unwind entries)


def parse_map(map_file: str, sections: dict[str, int]) -> list[Piece]:
    """The pieces of the allocated output sections, from a GNU ld map.

    Only the "Linker script and memory map" part is read. Lines there: an output section
    (`name addr size` at column 0, or the name alone with `addr size` on the next line), an
    input section (` name addr size file`, or ` name` and then `addr size file`), fill
    (` *fill* addr size`), linker data (`addr size LONG ...`), `size (size before relaxing)`
    after a merged input section, symbols (`addr name`) and patterns (` *(...)`).
    """
    with open(map_file) as f:
        lines = f.read().split("\n")
    try:
        start = lines.index("Linker script and memory map") + 1
    except ValueError:
        raise SystemExit(f"{map_file}: not a GNU ld map (no 'Linker script and memory map')")

    pieces: list[Piece] = []
    output = None  # current output section, if allocated
    pending = None  # input section name waiting for its `addr size file` line
    last = None  # the last input section, for its `(size before relaxing)` line
    addr_size = re.compile(r"\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)(?:\s+(.*))?$")

    def add(section: str, size: int, path: str) -> Piece | None:
        if output is None:
            return None
        pieces.append(Piece(output, section, path, size))
        return pieces[-1]

    for line in lines[start:]:
        if not line.strip():
            pending = last = None
            continue
        if not line[0].isspace():  # an output section (or LOAD/START GROUP lines before them)
            name = line.split()[0]
            output = name if name in sections else None
            pending = last = None
            continue
        m = re.match(r"\s+0x([0-9a-f]+) \(size before relaxing\)$", line)
        if m:
            if last is not None:
                last.size_before_merge = int(m.group(1), 16)
            continue
        if pending is not None:
            m = addr_size.match(line)
            pending_name, pending = pending, None
            if m and m.group(3):
                last = add(pending_name, int(m.group(2), 16), m.group(3).strip())
                continue
        last = None
        if line.startswith(" *fill*"):
            m = addr_size.match(line[len(" *fill*") :])
            if m:
                add("", int(m.group(2), 16), "")
            continue
        if line.startswith(" *"):  # a pattern of the linker script
            continue
        m = re.match(r" (\S+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(.*))?$", line)
        if m and not m.group(1).startswith("0x"):
            if m.group(2) is None:
                pending = m.group(1)  # the address, size and file follow on the next line
            else:
                last = add(m.group(1), int(m.group(3), 16), m.group(4).strip())
            continue
        m = addr_size.match(line)
        if m and m.group(3) and m.group(3).split()[0] in ("LONG", "SHORT", "BYTE", "QUAD"):
            add("", int(m.group(2), 16), m.group(3))
    return pieces


def split_merged(pieces: list[Piece]) -> None:
    """Shares merged sections out by what each contributed.

    The linker merges mergeable sections (string literals, .ARM.exidx entries) of all
    objects into the first one of a kind: the map gives that one the merged size and the
    others 0, each with its size before merging. Each gets the merged size in proportion to
    what it brought (deduplication is shared out alike).
    """
    groups: dict[tuple[str, str], list[Piece]] = {}
    for p in pieces:
        if p.size_before_merge is not None:
            key = re.sub(r"^(\.[a-zA-Z_]+).*?(\.str\d+\.\d+)?$", r"\1\2", p.section)
            groups.setdefault((p.output, key), []).append(p)
    for group in groups.values():
        merged = sum(p.size for p in group)
        before = sum(p.size_before_merge for p in group)
        if before == 0:
            continue
        given = 0
        for p in group:
            p.size = merged * p.size_before_merge // before
            given += p.size
        group[0].size += merged - given  # rounding


def measure_size(image: Image) -> dict:
    sections = allocated_sections(image.elf)
    pieces = parse_map(image.map_file, sections)
    split_merged(pieces)
    sizes = {(c, k): 0 for c in COMPONENTS for k in KINDS}
    per_section: dict[str, int] = {}
    arena = 0
    merged = 0
    for p in pieces:
        per_section[p.output] = per_section.get(p.output, 0) + p.size
        if p.size_before_merge is not None:
            merged += p.size
        kind = kind_of(p.section, p.output)
        if kind is None:
            arena += p.size
        else:
            sizes[(component_of(p.path, p.section), kind)] += p.size
    # Every byte of every allocated section must be attributed (.etarm.tbss_space only
    # reserves the addresses of .tbss, which is counted itself).
    unattributed = {
        name: size - per_section.get(name, 0)
        for name, size in sections.items()
        if name != ".etarm.tbss_space" and size != per_section.get(name, 0)
    }
    components = {c: {k: sizes[(c, k)] for k in KINDS} for c in COMPONENTS}
    total = {k: sum(components[c][k] for c in COMPONENTS) for k in KINDS}
    return {
        "components": components,
        "total": total,
        "arena": arena,
        "merged_sections_bytes": merged,
        "unattributed": unattributed,
    }


def run_qemu(elf: str, args: list[str], timeout: float) -> str:
    semihosting = ",".join(["enable=on", "target=native", "arg=" + os.path.basename(elf)] + ["arg=" + a for a in args])
    cmd = [QEMU, "-M", QEMU_MACHINE, "-nographic", "-monitor", "none", "-serial", "none",
           "-semihosting-config", semihosting, "-icount", ICOUNT, "-kernel", elf]  # fmt: skip
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"{elf}: no exit from QEMU after {timeout:.0f} s")
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise SystemExit(f"{elf}: exit code {proc.returncode} under QEMU:\n{output}")
    return output


def calibrate(elf: str, timeout: float) -> dict:
    """Runs the calibration loop: the board's clock, and measured vs. known instructions."""
    output = run_qemu(elf, [], timeout)
    m = re.search(r"calibration: (\d+) instructions in (\d+) cycles at (\d+) Hz", output)
    if not m:
        raise SystemExit(f"{elf}: no calibration line in its output:\n{output}")
    expected, cycles, cpu_hz = (int(g) for g in m.groups())
    measured = cycles_to_instructions(cycles, cpu_hz)
    return {"cpu_hz": cpu_hz, "cycles": cycles, "expected_instructions": expected, "measured_instructions": measured,
            "relative_error": (measured - expected) / expected}  # fmt: skip


def cycles_to_instructions(cycles: int, cpu_hz: int) -> int:
    # -icount shift=0: 1 ns of virtual time per instruction; SysTick counts cpu_hz per second.
    return round(cycles * 1e9 / cpu_hz)


def measure_inference(image: Image, cpu_hz: int, timeout: float) -> dict:
    output = run_qemu(image.elf, ["--quiet"], timeout)
    m = re.search(r"^time: execute (\d+) cycles", output, re.MULTILINE)
    if not m:
        raise SystemExit(f"{image.elf}: the runner printed no 'time: execute N cycles' line:\n{output}")
    cycles = int(m.group(1))
    memory = re.search(r"^memory: (\d+) bytes used", output, re.MULTILINE)
    return {
        "cycles": cycles,
        "instructions": cycles_to_instructions(cycles, cpu_hz),
        "resolution_instructions": round(1e9 / cpu_hz),
        "arena_bytes_used": int(memory.group(1)) if memory else None,
    }


def images_from_files(files: list[str]) -> list[Image]:
    """Pairs `<name>_footprint.elf` with `<name>_footprint.map` (what footprint_image writes)."""
    by_stem: dict[str, dict[str, str]] = {}
    for path in files:
        stem, ext = os.path.splitext(path)
        by_stem.setdefault(stem, {})[ext] = path
    images = []
    for stem, found in by_stem.items():
        if ".elf" not in found or ".map" not in found:
            raise SystemExit(f"{stem}: need both {stem}.elf and {stem}.map, got {sorted(found.values())}")
        name = os.path.basename(stem).removesuffix("_footprint")
        images.append(Image(name, found[".elf"], found[".map"]))
    return images


def kib(n: int) -> str:
    return f"{n / 1024:.1f}"


def markdown(results: list[dict], calibration: dict) -> str:
    lines = []
    for r in results:
        inference = r["inference"]
        lines += [
            f"### {r['image']} (Corstone-300, Cortex-M55, -Os)",
            "",
            "| component | .text | .rodata | .data | .bss |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for c in COMPONENTS:
            row = r["size"]["components"][c]
            if any(row.values()):
                lines.append(f"| {c} | " + " | ".join(str(row[k]) for k in KINDS) + " |")
        total = r["size"]["total"]
        lines.append("| **total** | " + " | ".join(f"**{total[k]}**" for k in KINDS) + " |")
        core_text = r["size"]["components"]["runtime core"]["text"]
        verdict = "under" if core_text < CORE_TEXT_BUDGET else "OVER"
        lines += [
            "",
            f"Bytes. Runtime core .text: {core_text} B = {kib(core_text)} KiB, {verdict} the 32 KiB budget. "
            f"Runner arena (.etarm.arena, not in .bss above): {r['size']['arena']} B. "
            f"Per inference (`execute()`): {inference['instructions']} instructions "
            f"(QEMU -icount shift=0, +-{inference['resolution_instructions']}).",
            "",
        ]
    lines += [
        "### Summary (bytes; flash = .text + .rodata + .data, RAM = .data + .bss without the arena)",
        "",
        "| image | core .text | kernels .text | runner .text | platform .text | libraries .text | model "
        "| flash | RAM | arena used | instructions / inference |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        c, t = r["size"]["components"], r["size"]["total"]
        text = [c[name]["text"] for name in ("runtime core", "kernels", "runner", "platform", "C/C++ libraries")]
        model = sum(c["model"].values())
        flash = t["text"] + t["rodata"] + t["data"]
        ram = t["data"] + t["bss"]
        used = r["inference"]["arena_bytes_used"]
        lines.append(
            f"| {r['image']} | " + " | ".join(str(n) for n in text)
            + f" | {model} | {flash} | {ram} | {used if used is not None else '?'} | {r['inference']['instructions']} |"
        )
    lines.append("")
    lines.append(
        f"Calibration: a loop of {calibration['expected_instructions']} instructions measured as "
        f"{calibration['measured_instructions']} ({calibration['relative_error'] * 100:+.3f} %)."
    )
    return "\n".join(lines)


def check(results: list[dict], calibration: dict) -> None:
    """Sanity of a run (--check, for the smoke test): no sizes or speed are asserted."""
    assert results, "no images measured"
    for r in results:
        size = r["size"]
        assert not size["unattributed"], f"{r['image']}: map does not account for {size['unattributed']}"
        for c in ("runtime core", "kernels", "runner", "platform", "C/C++ libraries", "model"):
            assert size["components"][c]["text"] + size["components"][c]["rodata"] > 0, f"{r['image']}: no {c}"
        assert r["inference"]["instructions"] > 0, f"{r['image']}: no instructions counted"
    # The conversion itself: a wrong clock or icount shift is off by a large factor.
    assert abs(calibration["relative_error"]) < 0.05, f"calibration off: {calibration}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", nargs="+", required=True, help="ELF and map files (<name>_footprint.elf/.map)")
    parser.add_argument("--calibration", nargs="+", required=True, help="the calibration image (its .elf; a .map is ignored)")
    parser.add_argument("--json", default=None, help="results file (default: footprint.json in the workspace)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per QEMU run")
    parser.add_argument("--check", action="store_true", help="sanity-check the results (smoke test)")
    args = parser.parse_args(argv)

    calibration_elf = next((p for p in args.calibration if p.endswith(".elf")), None)
    if calibration_elf is None:
        parser.error("--calibration needs the calibration image's .elf")
    calibration = calibrate(calibration_elf, args.timeout)
    results = []
    for image in images_from_files(args.images):
        results.append({
            "image": image.name,
            "size": measure_size(image),
            "inference": measure_inference(image, calibration["cpu_hz"], args.timeout),
        })  # fmt: skip
    for r in results:
        r["core_text_under_32k"] = r["size"]["components"]["runtime core"]["text"] < CORE_TEXT_BUDGET

    print(markdown(results, calibration))
    json_path = os.path.abspath(args.json or default_json_path("footprint.json"))
    write_json(json_path, {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "board": "corstone300 (QEMU mps3-an547, Cortex-M55)",
        "build": "size_optimized (-Os, picolibc size-optimised variants)",
        "qemu_icount": ICOUNT,
        "calibration": calibration,
        "images": results,
    })  # fmt: skip
    print(f"wrote {json_path}")
    if args.check:
        check(results, calibration)
    return 0


if __name__ == "__main__":
    sys.exit(main())
