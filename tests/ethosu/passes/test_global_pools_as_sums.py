"""GlobalPoolsAsSums on Ethos-U (python/etarm/ethosu/passes/): exact, and fewer Vela cycles."""

import pytest

from etarm.ethosu.passes.global_pools_as_sums import GlobalPoolsAsSums
from etarm.testing.npu_rewrite_cases import assert_saves_cycles, built, family_key, global_pool


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
def test_rewrite_is_exact_and_saves_cycles(tmp_path, target):
    assert_saves_cycles(global_pool(), GlobalPoolsAsSums(family_key(target)), target, tmp_path)


def test_large_pools_stay_convolutions_on_u85():
    """Above 32x32 values Vela runs the unit-weight convolution faster on U85 (the pass's measurement)."""
    assert GlobalPoolsAsSums("u85").run(built(global_pool((1, 64, 64, 8)))) == 0
    assert GlobalPoolsAsSums("u55").run(built(global_pool((1, 64, 64, 8)))) == 1
