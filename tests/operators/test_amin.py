"""amin (TOSA REDUCE_MIN; on INT the integers move unchanged, 0 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "amin" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

from etarm.testing.reduction_checks import assert_int8_moves_unchanged, assert_int16_moves_unchanged, reduction_cases


def test_fp():
    reduction_cases("amin", whole=False, nan_dim=1).assert_close_to_torch()


def test_int8_is_exact():
    assert_int8_moves_unchanged(lambda x: x.amin((0, 2), keepdim=True), 3, 4, 5)


def test_int16_is_exact():
    assert_int16_moves_unchanged(lambda x: x.amin(0), 2, 3, 8, 9)
