"""GlobalPoolsAsSums (python/etarm/passes/): a whole-image pool's sum without unit weights, exactly."""

import tosa_serializer as ts

from etarm.passes.global_pools_as_sums import GlobalPoolsAsSums
from etarm.testing.npu_rewrite_cases import assert_exact, built, conv, global_pool


def test_whole_image_pool_becomes_one_reduce_sum_with_the_same_results():
    graph = built(global_pool((1, 25, 5, 32)))
    assert_exact(graph, GlobalPoolsAsSums())
    kinds = [op.op for op in graph.ops]
    assert ts.Op.DEPTHWISE_CONV2D not in kinds and kinds.count(ts.Op.REDUCE_SUM) == 1
    read = {name for op in graph.ops for name in op.inputs}
    # Only shapes and scalars are left: no unit weights.
    assert max(graph.constants[name].size for name in read if name in graph.constants) <= 4


def test_other_convolutions_stay():
    """Windows smaller than the image and weights other than ones are not sums of the image."""
    assert GlobalPoolsAsSums().run(built(conv((1, 8, 8, 4), (3, 3), (1, 1)))) == 0
    assert GlobalPoolsAsSums().run(built(conv((1, 3, 3, 4), (3, 3), (1, 1)))) == 0


class NeverPaysOff(GlobalPoolsAsSums):
    def pays_off(self, shape):
        return False


def test_a_backend_can_keep_the_convolution():
    assert NeverPaysOff().run(built(global_pool())) == 0
