"""tril (a SELECT with a constant mask), of floats, bools and int32.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "tril" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.comparison_checks import assert_triangles_close


def test_fp():
    assert_triangles_close("tril", torch.tril, (0, 1, -2), {"tril_bool": lambda t: torch.tril(t > 0)})
