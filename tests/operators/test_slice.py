"""slice (TOSA SLICE; steps > 1 cut the span and pick one column of a RESHAPE; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "slice" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.data_movement_checks import DTYPE_TARGETS, assert_dtypes_move_exactly, exact_cases


def test_steps_and_bounds():
    fns = {
        "start_end": lambda x: x[1:4],
        "negative_start": lambda x: x[-3:],
        "step2_padded": lambda x: x[:, ::2],  # the span of 4 groups (8) exceeds the axis (7)
        "step2_start1": lambda x: x[:, 1::2],
        "step3": lambda x: x[:, 1::3],
        "step2_shifted": lambda x: x[:, 4::2],  # the span starts one early to fit
        "clamped_start": lambda x: x[:, -100:3],
        "clamped_end_step4": lambda x: x[:, 2:100:4],
        "step_past_end": lambda x: x[:, ::10],  # one element
        "negative_bounds": lambda x: x[..., -4:-1],
        "step5_last": lambda x: x[..., 1::5],
        "three_axes": lambda x: x[::4, 1:, :1],
        "narrow": lambda x: x.narrow(1, 2, 3),
        "narrow_negative_dim": lambda x: x.narrow(-1, 5, 1),
    }
    cases = exact_cases(fns, torch.randn(5, 7, 6))
    for shape in [(9,), (2, 3, 4, 5, 6)]:
        fns = {
            f"step2 {shape}": lambda x: x[..., 1::2],
            f"drop_last {shape}": lambda x: x[..., :-1],
            f"last_of_first_axis {shape}": lambda x: x[-1:],
            f"step3 {shape}": lambda x: x[..., ::3],
        }
        exact_cases(fns, torch.randn(shape), cases=cases)
    cases.assert_close_to_torch()


@pytest.mark.parametrize("target", DTYPE_TARGETS)
def test_dtypes(target):
    assert_dtypes_move_exactly(lambda x: x[:, 1::2], target)
