"""Each target family's pipeline, pass by pass, and the rule that every pass has its own test file.

A change to a pipeline is a deliberate change of the lists here.
"""

import importlib
import inspect
import pathlib
import pkgutil

import pytest

import etarm.ethosu.passes
import etarm.passes
import etarm.vgf.passes
from etarm.cortex_m.pipeline import cortex_m_passes
from etarm.ethosu.compile_spec import NPU_TARGETS, EthosUCompileSpec
from etarm.ethosu.npu_rules import is_u55_class
from etarm.passes import base
from etarm.passes.base import Pipeline, Stage
from etarm.passes.fold_quantize_nodes import FoldQuantizeNodes
from etarm.passes.lift_scalar_operands import LiftScalarOperands
from etarm.targets import compile_spec_for
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.vgf.compile_spec import VgfCompileSpec

TOSA_STAGES = {
    Stage.BEFORE_ANNOTATION: [
        "fold_constant_weights",
        "decompose_for_annotation",
        "decompose_recurrent_layers",
        "additive_masks_as_where",
        "lift_scalar_operands",
    ],
    Stage.EXPORTED: ["make_kept_composite_outputs_contiguous"],
    Stage.TOSA: ["cancel_layout_changes"],
    Stage.BACKEND: [],
    Stage.CPU: [],
}
INT64_NARROWING = [
    "convert_int64_const_ops_to_int32",
    "convert_int64_output_ops_to_int32",
    "insert_int32_casts_after_int64_placeholders",
]
INT_EDGE = ["compute_small_integers_in_int32", "duplicate_shared_dequantizers", "quantize_pass_through_outputs"]
INT_PARTITION = ["fold_batch_norm_into_convolution", "fold_quantize_nodes", "share_qparams"]
NPU_COMMON = [
    "reductions_without_transposes",
    "global_pools_as_sums",
    "narrow_transposes",
    "trivial_transposes_as_reshapes",
    "transposes_with_unit_axes_in_place",
]
# Each family's own rewrites, in pipeline order (pad_strided_max_pools is in both).
U55_REWRITES = [
    "sums_in_steps",
    "pad_strided_convolutions",
    "subsample_strided_convolutions",
    "pad_strided_max_pools",
    "nearest_resizes_as_half_pixel",
    "extremum_casts_as_rescales",
    "floor_shifts_as_rounded_shifts",
    "minima_as_complemented_maxima",
    "rescales_before_slices_and_tiles",
    "pointwise_rows_as_batch",
]
U85_REWRITES = [
    "transposes_at_lowest_rank",
    "slices_at_lowest_rank",
    "pointwise_rows_as_batch",
    "pad_strided_max_pools",
    "narrowings_doubled_before_rescales",
]
U55_ONLY = sorted(set(U55_REWRITES) - set(U85_REWRITES))
U85_ONLY = sorted(set(U85_REWRITES) - set(U55_REWRITES))
ETHOSU_STAGES = {
    **TOSA_STAGES,
    Stage.BEFORE_ANNOTATION: [
        "split_composites",
        "fold_constant_weights",
        "decompose_for_annotation",
        "decompose_recurrent_layers",
        "additive_masks_as_where",
        "lift_scalar_operands",
    ],
    Stage.EDGE: INT64_NARROWING + INT_EDGE,
    Stage.PARTITION: INT_PARTITION,
    # What the NPU leaves on the CPU: the Cortex-M target's rewrites, in its order.
    Stage.CPU: [p.name() for p in cortex_m_passes()],
}

EXPECTED = {
    "TOSA-1.0+FP": {
        **TOSA_STAGES,
        Stage.EDGE: INT64_NARROWING,
        Stage.PARTITION: ["fold_batch_norm_into_convolution"],
    },
    "TOSA-1.0+INT": {
        **TOSA_STAGES,
        # Quantized programs narrow int64 ids and positions too, so embeddings and arange can be delegated.
        Stage.EDGE: INT64_NARROWING + INT_EDGE,
        Stage.PARTITION: INT_PARTITION,
    },
    "ethos-u55-128": {
        **ETHOSU_STAGES,
        # No INTDIV nor GATHER on U55/U65: divisions by tensors are written as reciprocal products, glus as
        # sigmoid products.
        Stage.BEFORE_ANNOTATION: ["split_composites", "divisions_as_reciprocal_products", "glus_as_sigmoid_products"]
        + ETHOSU_STAGES[Stage.BEFORE_ANNOTATION][1:],
        Stage.BACKEND: NPU_COMMON + U55_REWRITES,
    },
    "ethos-u85-256": {**ETHOSU_STAGES, Stage.BACKEND: NPU_COMMON + U85_REWRITES},
}
# -t vgf: the TOSA FP pipeline, and with -q the TOSA INT one, then the VGF backend's rewrites.
VGF_BACKEND = ["global_pools_as_sums", "rank_zero_as_shape_one"]
EXPECTED["vgf"] = {**EXPECTED["TOSA-1.0+FP"], Stage.BACKEND: VGF_BACKEND}
VGF_QUANTIZED = {**EXPECTED["TOSA-1.0+INT"], Stage.BACKEND: VGF_BACKEND}


def pipeline(target: str) -> Pipeline:
    if target == "vgf":
        return VgfCompileSpec("TOSA-1.0+FP").pipeline()
    spec = EthosUCompileSpec(target) if target.startswith("ethos-u") else TosaCompileSpec(target)
    return spec.pipeline()


def test_vgf_quantized_runs_the_int_pipeline():
    stages = compile_spec_for("vgf", quantize=True).pipeline()
    assert stages.target == "vgf"
    assert {stage: [p.name() for p in stages.stage(stage)] for stage in Stage} == VGF_QUANTIZED


@pytest.mark.parametrize("target", EXPECTED)
def test_each_stage_runs_exactly_these_passes(target):
    stages = pipeline(target)
    assert {stage: [p.name() for p in stages.stage(stage)] for stage in Stage} == EXPECTED[target]


@pytest.mark.parametrize("target", EXPECTED)
def test_describe_lists_every_stage_and_pass(target):
    stages = pipeline(target)
    lines = stages.describe()
    assert lines[0] == f"pipeline of {target}"
    headings = [line for line in lines[1:] if not line.startswith(" ")]
    assert headings == [f"{stage.value}:" for stage in Stage]
    listed = [line.split()[0] for line in lines[1:] if line.startswith("  ") and line.strip() != "(none)"]
    assert listed == [p.name() for p in stages.passes]
    for stage in Stage:  # a stage without passes says so
        if not stages.stage(stage):
            assert lines[lines.index(f"{stage.value}:") + 1] == "  (none)"


def test_no_cortex_m_fallback_leaves_the_cpu_part_alone():
    assert EthosUCompileSpec("ethos-u55-128", cortex_m_fallback=False).pipeline().stage(Stage.CPU) == []
    assert pipeline("ethos-u85-256").stage(Stage.CPU) and pipeline("TOSA-1.0+INT").stage(Stage.CPU) == []


def test_pipeline_rejects_passes_out_of_flow_order():
    with pytest.raises(ValueError, match="out of flow order"):
        Pipeline("test", [FoldQuantizeNodes(), LiftScalarOperands()])
    assert Pipeline("test", [LiftScalarOperands(), FoldQuantizeNodes()]).passes[0].name() == "lift_scalar_operands"


@pytest.mark.parametrize("target", sorted(NPU_TARGETS))
def test_family_rewrites_only_in_their_family(target):
    names = {p.name() for p in pipeline(target).stage(Stage.BACKEND)}
    if is_u55_class(NPU_TARGETS[target]):
        assert set(U55_ONLY) <= names and not set(U85_ONLY) & names
    else:
        assert set(U85_ONLY) <= names and not set(U55_ONLY) & names


# --- one test file per pass --------------------------------------------------------------------
TESTS = pathlib.Path(__file__).parents[1]  # tests/ (under Bazel: the runfiles, where BUILD puts every test file)
PASS_PACKAGES = {
    etarm.passes: TESTS / "passes",
    etarm.ethosu.passes: TESTS / "ethosu" / "passes",
    etarm.vgf.passes: TESTS / "vgf" / "passes",
}
BASES = {cls for _, cls in inspect.getmembers(base, inspect.isclass) if issubclass(cls, base.Pass)}


def pass_modules():
    """(module name, the test file it needs) of every module defining a Pass subclass."""
    found = []
    for package, test_dir in PASS_PACKAGES.items():
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            defined = [
                cls
                for _, cls in inspect.getmembers(module, inspect.isclass)
                if cls.__module__ == module.__name__ and issubclass(cls, base.Pass) and cls not in BASES
            ]
            if defined:
                found.append((module.__name__, test_dir / f"test_{info.name}.py"))
    return found


def test_pass_modules_are_found():
    names = {name for name, _ in pass_modules()}
    assert {"etarm.passes.fold_quantize_nodes", "etarm.ethosu.passes.sums_in_steps"} <= names
    assert "etarm.passes.dtype_casts" not in names and "etarm.passes.base" not in names


@pytest.mark.parametrize("module, test_file", [pytest.param(*found, id=found[0]) for found in pass_modules()])
def test_every_pass_has_its_own_test_file(module, test_file):
    assert test_file.is_file(), f"{module} has no test file {test_file.relative_to(TESTS.parent)}"
