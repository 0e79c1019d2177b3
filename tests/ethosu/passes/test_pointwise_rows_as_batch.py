"""PointwiseRowsAsBatch (python/etarm/ethosu/passes/): exact, and fewer Vela cycles on Ethos-U85."""

import numpy as np
import tosa_serializer as ts

from etarm.ethosu.passes.pointwise_rows_as_batch import PointwiseRowsAsBatch
from etarm.testing.npu_rewrite_cases import I8, assert_exact, assert_saves_cycles, built, conv


def test_linear_rows_as_batch(tmp_path):
    """A 1x1 CONV2D over 8 rows ([1, 8, 1, 16], a linear) takes them as its batch on
    Ethos-U85: fewer cycles, same integers."""
    assert_saves_cycles(conv((1, 8, 1, 16), (1, 1), (1, 1), depthwise=False), PointwiseRowsAsBatch(), "ethos-u85-256", tmp_path)


def test_linear_before_a_table_stays():
    """Vela fuses a TABLE into the convolution only at batch 1."""

    def linear_then_table(graph):
        result = conv((1, 8, 1, 16), (1, 1), (1, 1), depthwise=False)(graph)
        return graph.emit(ts.Op.TABLE, [result, graph.const(np.arange(-128, 128) // 2, I8)], result.shape, I8)

    assert_exact(built(linear_then_table), PointwiseRowsAsBatch(), rewrites=0)
