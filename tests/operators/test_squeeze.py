"""squeeze (TOSA RESHAPE; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "squeeze" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

from etarm.testing.data_movement_checks import layout_cases


def _squeezes(x):
    fns = {"squeeze_all": lambda x: x.squeeze()}
    if x.dim() > 1:
        fns["squeeze_1"] = lambda x: x.squeeze(1)
    return fns


def test_fp():
    layout_cases(_squeezes).assert_close_to_torch()
