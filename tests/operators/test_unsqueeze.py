"""unsqueeze (TOSA RESHAPE; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "unsqueeze" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.data_movement_checks import exact_cases, layout_cases


def test_fp():
    cases = layout_cases(lambda x: {"unsqueeze_0": lambda x: x.unsqueeze(0), "unsqueeze_-1": lambda x: x.unsqueeze(-1)})
    exact_cases({"unsqueeze of a 0-d tensor": lambda x: x.unsqueeze(0)}, torch.tensor(1.5), cases=cases)
    cases.assert_close_to_torch()
