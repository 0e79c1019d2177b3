"""PadStridedConvolutions (python/etarm/ethosu/passes/) against Vela for Ethos-U55."""

import pytest

from etarm.ethosu.passes.pad_strided_convolutions import PadStridedConvolutions
from etarm.testing.npu_rewrite_cases import assert_lets_u55_run, built, conv, vela_refusal


@pytest.mark.parametrize("zero_point, padding_ops", [(0, ["CONCAT", "CONCAT"]), (-7, ["PAD"])])
def test_padding_rewrite_is_exact_and_compiles_on_u55(tmp_path, zero_point, padding_ops):
    """CONV2D stride 4 with padding -> padding by the input zero point + unpadded CONV2D."""
    build = conv((1, 28, 28, 8), (3, 3), (4, 4), (1, 2, 2, 1), depthwise=False, zero_point=zero_point)
    assert vela_refusal(built(build), "ethos-u55-128", tmp_path)
    graph = assert_lets_u55_run(build, PadStridedConvolutions(), tmp_path)
    assert [op.op.name for op in graph.ops][: len(padding_ops) + 1] == [*padding_ops, "CONV2D"]


def test_dilated_convolutions_stay():
    """SubsampleStridedConvolutions handles those (Vela runs strides above 3 undilated only)."""
    graph = built(conv((1, 28, 28, 8), (3, 3), (4, 4), (1, 1, 1, 1), dilation=(2, 2), depthwise=False))
    assert PadStridedConvolutions().run(graph) == 0
