"""PadStridedMaxPools (python/etarm/ethosu/passes/) against Vela: it lets Ethos-U55 run a padded
max pool with a stride above 3, and makes Ethos-U85 compute it right (Vela 5.2.0 splits it into
one 1x1 pool per tap there and drops the padding: on the NPU model, most outputs differ)."""

import numpy as np
import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.pad_strided_max_pools import PadStridedMaxPools
from etarm.npu_model import NpuModelError, run_payload
from etarm.testing.npu_model_reference import graph_payload
from etarm.testing.npu_rewrite_cases import I8, assert_exact, assert_lets_u55_run, built, sample_inputs
from etarm.testing.tosa_graphs import graph_input
from etarm.tosa.reference_model import run_tosa


def max_pool(shape, kernel, stride, pad):
    def build(graph):
        x = graph_input(graph, shape)
        n, h, w, c = shape
        out = (n, (h + pad[0] + pad[1] - kernel[0]) // stride[0] + 1, (w + pad[2] + pad[3] - kernel[1]) // stride[1] + 1, c)
        return graph.emit(ts.Op.MAX_POOL2D, [x], out, I8, list(kernel), list(stride), list(pad), ts.NanPropagationMode.PROPAGATE)

    return build


CASES = {
    "max pool stride 4 padded": max_pool((1, 18, 18, 8), (4, 4), (4, 4), (1, 1, 1, 1)),
    "max pool stride (4, 5) padded": max_pool((1, 17, 19, 4), (3, 5), (4, 5), (1, 1, 0, 1)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rewrite_is_exact_and_compiles_on_u55(tmp_path, case):
    graph = assert_lets_u55_run(CASES[case], PadStridedMaxPools(), tmp_path)
    assert [op.op.name for op in graph.ops] == ["PAD", "MAX_POOL2D"]


def _differing_outputs_on_u85(graph, directory) -> int | None:
    """How many outputs of Vela's stream differ from the TOSA reference model's on the NPU model;
    None when the model refuses the stream (a 1x1 pool of a tap wholly in the padding)."""
    directory.mkdir()
    inputs = sample_inputs(graph)
    try:
        (got,) = run_payload(graph_payload(graph, "ethos-u85-256", str(directory)), "ethos-u85-256", inputs)
    except NpuModelError:
        return None
    (want,) = run_tosa(graph.serialize(), inputs)
    return int(np.count_nonzero(got != np.asarray(want).reshape(got.shape)))


@pytest.mark.parametrize("case", list(CASES))
def test_rewrite_makes_ethos_u85_compute_the_padded_pool(tmp_path, case):
    graph = built(CASES[case])
    before = _differing_outputs_on_u85(graph, tmp_path / "as_lowered")
    assert before is None or before > 0  # the reason for the rewrite
    assert_exact(graph, PadStridedMaxPools())
    assert _differing_outputs_on_u85(graph, tmp_path / "rewritten") == 0
