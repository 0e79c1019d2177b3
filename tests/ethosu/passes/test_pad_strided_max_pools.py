"""PadStridedMaxPools (python/etarm/ethosu/passes/) against Vela for Ethos-U55."""

import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.pad_strided_max_pools import PadStridedMaxPools
from etarm.testing.npu_rewrite_cases import I8, assert_lets_u55_run
from etarm.testing.tosa_graphs import graph_input


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
