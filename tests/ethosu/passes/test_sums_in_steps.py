"""SumsInSteps (python/etarm/ethosu/passes/) against Vela for Ethos-U55, and through the flow."""

import pytest
import tosa_serializer as ts

from etarm.ethosu import npu_rules
from etarm.ethosu.passes.sums_in_steps import SumsInSteps
from etarm.testing.npu_rewrite_cases import I32, assert_lets_u55_run, built, rescale, widen
from etarm.testing.tosa_graphs import graph_input


def long_sum(length, rows=1):
    """The quantized sum over the last axis of a [rows, length] tensor: widen, REDUCE_SUM, RESCALE."""

    def build(graph):
        x = graph_input(graph, (rows, length))
        total = graph.emit(ts.Op.REDUCE_SUM, [widen(graph, x, 3)], (rows, 1), I32, 1)
        return rescale(graph, total, 1 << 30, 46)

    return build


CASES = {
    "sum over 90000 values": long_sum(90000, 2),  # 2 x 45000
    "sum over 70001 values (prime)": long_sum(70001),  # zero-padded to 2 x 65536
}


@pytest.mark.parametrize("case", list(CASES))
def test_rewrite_is_exact_and_compiles_on_u55(tmp_path, case):
    assert_lets_u55_run(CASES[case], SumsInSteps(), tmp_path)


def test_short_sums_stay():
    graph = built(long_sum(65536))
    assert SumsInSteps().run(graph) == 0


@pytest.mark.parametrize(
    "size, split",
    [(65536, (1, 65536)), (90000, (2, 45000)), (70001, (2, 65536)), (65536 * 3 + 5, (4, 65536)), (2**32, (65536, 65536))],
)
def test_sum_split(size, split):
    assert npu_rules.sum_split(size) == split
    outer, inner = split
    assert outer * inner >= size and max(split) <= 65536


def test_long_mean_runs_on_ethos_u55_in_steps():
    """Through the flow: a mean over 300x300 values (the lowering merges H and W into one axis)."""
    import torch

    from etarm.compiler import compile_model
    from etarm.testing.cpu_fallback import Fn

    torch.manual_seed(0)
    report = compile_model(Fn(lambda x: x.mean(dim=(2, 3))), (torch.randn(1, 4, 300, 300),), "ethos-u55-128", quantize=True).report
    assert all("quantize" in entry["op"] for entry in report["cpu_ops"])
    (partition,) = report["partitions"]
    assert partition["npu_rewrites"] == {SumsInSteps.name(): 1}
