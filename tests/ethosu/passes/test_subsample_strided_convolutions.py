"""SubsampleStridedConvolutions (python/etarm/ethosu/passes/) against Vela for Ethos-U55."""

import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.subsample_strided_convolutions import SubsampleStridedConvolutions
from etarm.testing.npu_rewrite_cases import I8, assert_lets_u55_run, built, conv

CASES = {
    "depthwise stride 4 padded": conv((1, 17, 13, 8), (3, 3), (4, 4), (1, 1, 1, 1)),
    "depthwise stride (5, 2)": conv((1, 20, 12, 4), (5, 3), (5, 2), (0, 0, 1, 0)),
    "depthwise stride 4, int32 result": conv((1, 16, 16, 4), (4, 4), (4, 4), rescaled=False),
    "depthwise global 25x5 window": conv((1, 25, 5, 8), (25, 5), (25, 5)),
    "depthwise stride 4, zero point": conv((1, 16, 16, 4), (4, 4), (4, 4), zero_point=-5),
    "conv stride 4 dilated": conv((1, 21, 25, 4), (3, 3), (4, 4), dilation=(2, 2), depthwise=False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rewrite_is_exact_and_compiles_on_u55(tmp_path, case):
    assert_lets_u55_run(CASES[case], SubsampleStridedConvolutions(), tmp_path)


def test_global_window_only_changes_the_stride():
    graph = built(conv((1, 25, 5, 8), (25, 5), (25, 5)))
    assert SubsampleStridedConvolutions().run(graph) == 1
    assert [op.op.name for op in graph.ops] == ["DEPTHWISE_CONV2D", "RESCALE"]
    assert graph.ops[0].attr_args[1] == [1, 1]


def test_subsampling_follows_the_rescale():
    """int8 rather than int32 data is subsampled when the convolution feeds one RESCALE."""
    graph = built(conv((1, 17, 19, 8), (3, 3), (4, 4), (1, 1, 1, 1)))
    assert SubsampleStridedConvolutions().run(graph) == 1
    names = [op.op.name for op in graph.ops]
    assert names[:2] == ["DEPTHWISE_CONV2D", "RESCALE"] and "SLICE" in names[2:]
    assert all(graph.tensors[op.inputs[0]].dtype == I8 for op in graph.ops if op.op == ts.Op.SLICE)
