"""Vela configuration files (.ini): which system configs and memory modes they define.

A Vela .ini holds ``[System_Config.<name>]`` sections (clock, what each AXI port is
wired to: Sram, Dram, OnChipFlash, OffChipFlash) and ``[Memory_Mode.<name>]`` sections
(which port holds the constants, the arena and the cache); a section may
``inherit=`` another. This module reads them so a compile spec can be checked before
Vela runs: Vela itself only checks that the sections exist and that the arena is not
in flash, and says nothing about an NPU that cannot use the chosen wiring.
"""

from __future__ import annotations

import configparser
import dataclasses
import functools
import os

from etarm.errors import EtarmError

# Vela's own example configuration, shipped in the ethos-u-vela wheel as data.
BUNDLED_CONFIG = "Arm/vela.ini"

SYSTEM_PREFIX = "System_Config."
MEMORY_PREFIX = "Memory_Mode."
# Memories an NPU can write to (the arena must live in one of them).
WRITABLE_MEMORIES = ("Sram", "Dram")


def bundled_config_path() -> str:
    """The absolute path of Vela's bundled Arm/vela.ini (found without importing Vela)."""
    import importlib.util

    spec = importlib.util.find_spec("ethosu")
    if spec is None or not spec.submodule_search_locations:
        raise EtarmError("ethos-u-vela is not installed (pip install ethos-u-vela==5.2.0)")
    root = list(spec.submodule_search_locations)[0]
    path = os.path.join(root, "config_files", *BUNDLED_CONFIG.split("/"))
    if not os.path.isfile(path):
        raise EtarmError(f"ethos-u-vela has no {BUNDLED_CONFIG} at {path}")
    return path


def resolve_config_path(config_ini: str | None) -> str:
    """``None`` or ``Arm/vela.ini`` name the bundled file; anything else is a path."""
    if config_ini is None or config_ini == BUNDLED_CONFIG:
        return bundled_config_path()
    path = os.path.abspath(os.path.expanduser(config_ini))
    if not os.path.isfile(path):
        raise EtarmError(f"Vela config file '{config_ini}' does not exist")
    return path


@dataclasses.dataclass(frozen=True)
class SystemConfig:
    name: str
    core_clock_hz: float
    axi0_port: str
    axi1_port: str


@dataclasses.dataclass(frozen=True)
class MemoryMode:
    name: str
    const_mem_area: str  # Axi0 / Axi1
    arena_mem_area: str
    cache_mem_area: str
    arena_cache_size: int | None


@dataclasses.dataclass(frozen=True)
class VelaConfigFile:
    path: str
    system_configs: dict[str, SystemConfig]
    memory_modes: dict[str, MemoryMode]

    def port_memory(self, system: SystemConfig, area: str) -> str:
        """The memory (Sram, Dram, ...) an ``Axi0``/``Axi1`` area of ``system`` is wired to."""
        return {"Axi0": system.axi0_port, "Axi1": system.axi1_port}.get(area, area)


def _resolved_section(parser: configparser.ConfigParser, section: str, path: str, seen=()) -> dict[str, str]:
    """The section's keys with ``inherit=`` chains applied (the child's keys win)."""
    if section in seen:
        raise EtarmError(f"Vela config file '{path}': section [{section}] inherits from itself")
    values = dict(parser[section])
    parent = values.pop("inherit", None)
    if parent is None:
        return values
    if not parser.has_section(parent):
        raise EtarmError(f"Vela config file '{path}': [{section}] inherits from missing section [{parent}]")
    return {**_resolved_section(parser, parent, path, (*seen, section)), **values}


@functools.lru_cache(maxsize=8)
def load_config_file(path: str) -> VelaConfigFile:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive in Vela's files
    try:
        with open(path) as f:
            parser.read_file(f)
    except (OSError, configparser.Error) as exc:
        raise EtarmError(f"Vela config file '{path}' is not readable: {exc}") from exc
    systems, modes = {}, {}
    for section in parser.sections():
        if section.startswith(SYSTEM_PREFIX):
            values = _resolved_section(parser, section, path)
            name = section[len(SYSTEM_PREFIX) :]
            systems[name] = SystemConfig(
                name=name,
                core_clock_hz=float(values.get("core_clock", "nan")),
                axi0_port=values.get("axi0_port", "Sram"),
                axi1_port=values.get("axi1_port", "OffChipFlash"),
            )
        elif section.startswith(MEMORY_PREFIX):
            values = _resolved_section(parser, section, path)
            name = section[len(MEMORY_PREFIX) :]
            cache = values.get("arena_cache_size")
            modes[name] = MemoryMode(
                name=name,
                const_mem_area=values.get("const_mem_area", "Axi1"),
                arena_mem_area=values.get("arena_mem_area", "Axi0"),
                cache_mem_area=values.get("cache_mem_area", "Axi0"),
                arena_cache_size=int(float(cache)) if cache else None,
            )
    return VelaConfigFile(path, systems, modes)
