"""triu (a SELECT with a constant mask), of floats, bools and int32.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "triu" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.comparison_checks import assert_triangles_close


def test_fp():
    others = {
        "triu_int32": lambda t: torch.triu((t * 10).int(), 1),
        "triu_nan": lambda t: torch.triu(t / (t - t)),  # masked-out NaN must become 0
    }
    assert_triangles_close("triu", torch.triu, (0, 2, -1), others)
