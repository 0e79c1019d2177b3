"""The target registry: a family added as docs/adding_a_target.md says is reachable by its -t
name from compile_model, with its options checked and its pipeline run."""

import pytest
import torch

from etarm import targets
from etarm.compiler import compile_model
from etarm.errors import EtarmError
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.target_family import TargetFamily, TargetOption
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa.partitioner import TOSAPartitioner


class _Demo(TosaCompileSpec):
    """A TOSA FP compile spec under another name, with one option of its own."""

    def __init__(self, target: str, options: dict):
        super().__init__("TOSA-1.0+FP")
        self.target, self.options = target, options


DEMO = TargetFamily(
    name="Demo",
    targets=("demo-fp",),
    description="a family declared the way docs/adding_a_target.md describes",
    compile_spec=_Demo,
    partitioner=TOSAPartitioner,
    default_quantizer=lambda spec, options: TOSAQuantizer(spec).set_global(get_symmetric_quantization_config()),
    options=(TargetOption("demo_level", "a setting of the demo family"),),
    summary_lines=lambda report: [f"demo partitions {len(report['partitions'])}"],
)


@pytest.fixture
def demo_registered(monkeypatch):
    monkeypatch.setattr(targets, "FAMILIES", (*targets.FAMILIES, DEMO))


class _AddMul(torch.nn.Module):
    def forward(self, x, y):
        return x * y + x


def test_a_new_family_compiles_by_its_name(demo_registered):
    inputs = (torch.randn(2, 3), torch.randn(2, 3))
    result = compile_model(_AddMul(), inputs, "demo-fp", target_options={"demo_level": "3"})
    (partition,) = result.report["partitions"]
    assert partition["backend"] == "TOSABackend" and result.report["cpu_ops"] == []
    assert targets.family_of("DEMO-FP") is DEMO
    assert targets.compile_spec_for("demo-fp", {"demo_level": "3"}).options == {"demo_level": "3"}
    assert DEMO.summary_lines(result.report) == ["demo partitions 1"]


def test_its_options_belong_to_it_alone(demo_registered):
    with pytest.raises(EtarmError, match=r"^--demo_level applies to Demo targets only, not 'TOSA-1.0\+FP'$"):
        compile_model(_AddMul(), (torch.randn(2), torch.randn(2)), "TOSA-1.0+FP", target_options={"demo_level": "1"})
    with pytest.raises(EtarmError, match="--memory_mode applies to Ethos-U targets only, not 'demo-fp'"):
        targets.checked_options("demo-fp", {"memory_mode": "Shared_Sram"})


def test_unknown_targets_name_every_known_one(demo_registered):
    with pytest.raises(EtarmError) as error:
        targets.family_of("vulkan")
    assert "demo-fp" in str(error.value) and "ethos-u85-2048" in str(error.value) and "vgf" in str(error.value)


def test_every_target_belongs_to_exactly_one_family():
    for target in targets.known_targets():
        assert [f.name for f in targets.FAMILIES if f.owns(target)] == [targets.family_of(target).name]
    assert targets.family_of("ETHOS-U55-128").name == "Ethos-U"  # -t is case-insensitive


def test_options_of_another_family_are_refused():
    assert targets.checked_options("ethos-u55-128", {"memory_mode": "Shared_Sram", "system_config": None}) == {
        "memory_mode": "Shared_Sram"
    }
    with pytest.raises(EtarmError, match=r"^--memory_mode applies to Ethos-U targets only, not 'TOSA-1.0\+FP'$"):
        targets.checked_options("TOSA-1.0+FP", {"memory_mode": "Shared_Sram"})
    with pytest.raises(EtarmError, match="unknown option"):
        targets.checked_options("TOSA-1.0+FP", {"no_such_option": 1})


def test_a_family_may_give_quantized_models_their_own_compile_spec():
    """-t vgf: float models with the TOSA FP profile, quantized ones (-q) with INT."""
    assert str(targets.compile_spec_for("vgf").tosa_spec) == "TOSA-1.0+FP"
    assert str(targets.compile_spec_for("vgf", quantize=True).tosa_spec) == "TOSA-1.0+INT"
    assert str(targets.make_partitioner("vgf", quantize=True).compile_spec.tosa_spec) == "TOSA-1.0+INT"
    # Families without one use the same spec either way.
    assert str(targets.compile_spec_for("TOSA-1.0+INT", quantize=True).tosa_spec) == "TOSA-1.0+INT"
