"""EthosUCompileSpec: targets, per-family defaults, and configurations that do not fit."""

import pytest

from etarm.errors import EtarmError
from etarm.ethosu.compile_spec import NPU_TARGETS, EthosUCompileSpec
from etarm.ethosu.vela_config import bundled_config_path, load_config_file


@pytest.mark.parametrize(
    "target, system, memory",
    [
        ("ethos-u55-32", "Ethos_U55_High_End_Embedded", "Shared_Sram"),
        ("ethos-u55-128", "Ethos_U55_High_End_Embedded", "Shared_Sram"),
        ("ethos-u65-512", "Ethos_U65_High_End", "Dedicated_Sram_384KB"),
        ("ethos-u85-256", "Ethos_U85_SYS_DRAM_Mid", "Dedicated_Sram_384KB"),
        ("ethos-u85-2048", "Ethos_U85_SYS_DRAM_Mid", "Dedicated_Sram_384KB"),
    ],
)
def test_family_defaults(target, system, memory):
    spec = EthosUCompileSpec(target)
    assert (spec.system_config, spec.memory_mode) == (system, memory)
    assert str(spec.tosa_spec) == "TOSA-1.0+INT+int16"
    assert spec.macs_per_cycle == int(target.rsplit("-", 1)[1])


def test_every_vela_accelerator_is_a_target():
    assert list(NPU_TARGETS) == [
        "ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256", "ethos-u65-256", "ethos-u65-512",
        "ethos-u85-128", "ethos-u85-256", "ethos-u85-512", "ethos-u85-1024", "ethos-u85-2048",
    ]  # fmt: skip
    for target in NPU_TARGETS:
        EthosUCompileSpec(target)


def test_unknown_target_lists_the_known_ones():
    with pytest.raises(EtarmError, match="unknown Ethos-U target 'ethos-u55-100'.*ethos-u55-128"):
        EthosUCompileSpec("ethos-u55-100")


@pytest.mark.parametrize(
    "target, system, memory, message",
    [
        ("ethos-u55-128", None, "Dedicated_Sram", "read-only on Ethos-U55: use Shared_Sram or Sram_Only"),
        ("ethos-u55-64", None, "Dedicated_Sram_384KB", "read-only on Ethos-U55"),
        ("ethos-u55-128", "Ethos_U85_SYS_DRAM_Mid", None, "describes an Ethos-U85 system, not ethos-u55-128"),
        ("ethos-u85-256", "Ethos_U55_High_End_Embedded", None, "describes an Ethos-U55 system.*Ethos_U85_SYS_DRAM_High"),
        ("ethos-u65-256", "Ethos_U65_Embedded", "Dedicated_Sram", "wires to OffChipFlash \\(read-only\\)"),
        ("ethos-u85-256", "Ethos_U85_SYS_Flash_High", "Dedicated_Sram_384KB", "wires to OffChipFlash"),
        ("ethos-u85-256", "No_Such_System", None, "system config 'No_Such_System' is not in Arm/vela.ini"),
        ("ethos-u85-256", None, "No_Such_Mode", "memory mode 'No_Such_Mode' is not in Arm/vela.ini.*Shared_Sram"),
    ],
)
def test_configurations_that_do_not_fit_are_refused(target, system, memory, message):
    with pytest.raises(EtarmError, match=message):
        EthosUCompileSpec(target, system_config=system, memory_mode=memory)


@pytest.mark.parametrize(
    "target, system, memory",
    [
        ("ethos-u55-128", "Ethos_U55_Deep_Embedded", "Sram_Only"),
        ("ethos-u65-256", "Ethos_U65_Mid_End", "Shared_Sram"),
        ("ethos-u85-512", "Ethos_U85_SYS_Flash_High", "Shared_Sram"),
        ("ethos-u85-128", "Ethos_U85_SYS_DRAM_Low", "Dedicated_Sram_512KB"),
    ],
)
def test_fitting_configurations_are_accepted(target, system, memory):
    spec = EthosUCompileSpec(target, system_config=system, memory_mode=memory)
    args = spec.vela_args()
    assert args[args.index("--system-config") + 1] == system
    assert args[args.index("--memory-mode") + 1] == memory
    assert args[args.index("--accelerator-config") + 1] == target


def test_custom_config_file_with_inheritance(tmp_path):
    ini = tmp_path / "board.ini"
    ini.write_text(
        "[System_Config.My_Board]\ncore_clock=250e6\naxi0_port=Sram\naxi1_port=Dram\n"
        "[Memory_Mode.Base]\nconst_mem_area=Axi1\narena_mem_area=Axi1\ncache_mem_area=Axi0\n"
        "[Memory_Mode.Big_Cache]\ninherit=Memory_Mode.Base\narena_cache_size=1048576\n"
    )
    config = load_config_file(str(ini))
    assert config.memory_modes["Big_Cache"].arena_mem_area == "Axi1"
    assert config.memory_modes["Big_Cache"].arena_cache_size == 1 << 20
    spec = EthosUCompileSpec("ethos-u85-256", "My_Board", "Big_Cache", config_ini=str(ini))
    assert spec.core_clock_hz() == 250e6
    # A board named freely says nothing about its family, but U55 still cannot write AXI1.
    with pytest.raises(EtarmError, match="read-only on Ethos-U55"):
        EthosUCompileSpec("ethos-u55-128", "My_Board", "Big_Cache", config_ini=str(ini))


def test_missing_config_file():
    with pytest.raises(EtarmError, match="Vela config file 'no/such.ini' does not exist"):
        EthosUCompileSpec("ethos-u55-128", config_ini="no/such.ini")


def test_extra_flags_may_not_override_managed_options():
    assert EthosUCompileSpec("ethos-u55-128", extra_flags="--optimise Size").extra_flags == ("--optimise", "Size")
    assert EthosUCompileSpec("ethos-u55-128", extra_flags=["--optimise", "Size"]).vela_args()[-2:] == ["--optimise", "Size"]
    with pytest.raises(EtarmError, match="extra_flags may not set --memory-mode"):
        EthosUCompileSpec("ethos-u55-128", extra_flags=["--memory-mode=Sram_Only"])
    with pytest.raises(EtarmError, match="extra_flags may not set --output-dir"):
        EthosUCompileSpec("ethos-u55-128", extra_flags="--output-dir /tmp")
    with pytest.raises(EtarmError, match="extra_flags may not set --output-format=tflite"):
        EthosUCompileSpec("ethos-u55-128", extra_flags="--output-format=tflite")


def test_extra_flags_may_repeat_what_the_backend_passes_anyway():
    # ExecuTorch's Ethos-U example passes these two.
    spec = EthosUCompileSpec("ethos-u55-128", extra_flags=["--output-format=raw", "--debug-force-regor"])
    assert spec.extra_flags == ("--debug-force-regor",)
    assert EthosUCompileSpec("ethos-u55-128", extra_flags="--output-format raw --optimise Size").extra_flags == (
        "--optimise",
        "Size",
    )


def test_compile_spec_list_round_trip(tmp_path):
    spec = EthosUCompileSpec("ethos-u85-512", "Ethos_U85_SYS_DRAM_High", "Shared_Sram", ["--optimise", "Size"])
    spec.dump_intermediate_artifacts_to(str(tmp_path))
    keys = [s.key for s in spec.to_list()]
    assert keys == ["tosa_spec", "ethosu", "intermediates_dir"]
    back = EthosUCompileSpec.from_list(spec.to_list())
    assert back == spec
    with pytest.raises(EtarmError, match="no Ethos-U settings"):
        EthosUCompileSpec.from_list(spec.to_list()[:1])


def test_bundled_config_is_vela_data_file():
    path = bundled_config_path()
    assert path.endswith("config_files/Arm/vela.ini")
    config = load_config_file(path)
    assert {"Ethos_U55_High_End_Embedded", "Ethos_U65_High_End", "Ethos_U85_SYS_DRAM_Mid"} <= set(config.system_configs)
    assert config.system_configs["Ethos_U55_High_End_Embedded"].core_clock_hz == 500e6


def test_quantizer_is_wired_to_the_compile_spec():
    import torch

    from etarm.quantizer import EthosUQuantizer
    from etarm.targets import default_quantizer

    spec = EthosUCompileSpec("ethos-u65-256")
    quantizer = EthosUQuantizer(spec)
    assert quantizer.compile_spec is spec and str(quantizer.tosa_spec) == "TOSA-1.0+INT+int16"
    assert EthosUQuantizer("ethos-u85-128").compile_spec.target == "ethos-u85-128"
    # The default for compile_model(..., quantize=True): int8 although the spec allows int16.
    default = default_quantizer(spec.target, spec)
    assert isinstance(default, EthosUQuantizer)
    assert default.global_config.input_activation.dtype == torch.int8


def test_direct_drive_asks_vela_for_separate_io_regions_on_u85_only():
    spec = EthosUCompileSpec("ethos-u85-256", direct_drive=True)
    assert spec.direct_drive
    assert spec.vela_args()[-2:] == ["--separate-io-regions", "--cop-format=COP2"]
    assert EthosUCompileSpec.from_list(spec.to_list()).direct_drive
    # The peer's spelling (its aot_arm_compiler's extra flags) is the same switch; not repeated.
    peer = EthosUCompileSpec("ethos-u85-256", extra_flags=["--separate-io-regions", "--cop-format=COP2"])
    assert peer.direct_drive
    both = EthosUCompileSpec("ethos-u85-256", extra_flags=peer.extra_flags, direct_drive=True)
    assert both.extra_flags == peer.extra_flags
    assert not EthosUCompileSpec("ethos-u85-256").direct_drive
    for target in ("ethos-u55-128", "ethos-u65-256"):
        with pytest.raises(EtarmError, match=f"an Ethos-U85 feature; {target} is Ethos-U"):
            EthosUCompileSpec(target, direct_drive=True)
