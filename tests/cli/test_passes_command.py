"""`etarm passes -t TARGET`: the pipeline of a target, printed stage by stage from the registry."""

import pytest

from etarm.passes.base import Stage
from etarm.targets import FAMILIES, compile_spec_for
from etarm.testing.cli import run_cli


def _listed_passes(stdout: str) -> dict[str, list[str]]:
    stages, current = {}, None
    for line in stdout.splitlines()[1:]:
        if not line.startswith(" "):
            current = stages.setdefault(line.rstrip(":"), [])
        elif line.strip() != "(none)":
            current.append(line.split()[0])
    return stages


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", "ethos-u55-128", "ethos-u85-256", "vgf"])
def test_passes_prints_the_pipeline_compile_uses(target):
    proc = run_cli("passes", "-t", target)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == f"pipeline of {target}"
    pipeline = compile_spec_for(target).pipeline()
    assert _listed_passes(proc.stdout) == {stage.value: [p.name() for p in pipeline.stage(stage)] for stage in Stage}


def test_passes_of_an_unknown_target_is_one_line():
    proc = run_cli("passes", "-t", "ethos-u99")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert proc.stderr.startswith("etarm: error: unknown target 'ethos-u99' (known: TOSA-1.0+FP,")


def test_every_option_is_a_cli_flag():
    proc = run_cli("compile", "--help")
    for family in FAMILIES:
        for option in family.options:
            assert option.flag in proc.stdout
