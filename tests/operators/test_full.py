"""full, zeros, ones, new_full: compile-time constants in the TOSA graph.

INT: a float constant is stored quantized by torch's own quantize with the parameters its
consumer reads it with.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "full" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.cpu_fallback import Fn, cpu_reasons
from etarm.testing.many_ops import assert_each_close_to_torch
from etarm.testing.quantized_reference import assert_quantized_close


def test_fp():
    torch.manual_seed(9)
    fns = {
        "full": lambda t: t + torch.full((2, 3, 4), 2.5),
        "zeros": lambda t: t + torch.zeros(4),
        "ones": lambda t: t * torch.ones(3, 1),
        "new_full": lambda t: t.new_full((3, 4), -1.5) - t,
        "bool_full": lambda t: torch.logical_and(t > 0, torch.ones(4, dtype=torch.bool)),
    }
    assert_each_close_to_torch(fns, (torch.randn(2, 3, 4),))


def test_fill_value_known_only_at_run_time_stays_on_cpu():
    reasons = cpu_reasons(lambda t, n: t + torch.full((3,), n.item() * 1.0), (torch.randn(3), torch.tensor(2)))
    assert any("aten.full.default: arguments ['mul'] are only known at run time" in r for r in reasons), reasons


def test_float_constants_are_stored_quantized():
    torch.manual_seed(36)
    fn = lambda x: (x + torch.full((4, 6), 0.75), torch.where(x > 0, x, torch.ones(6)))  # noqa: E731
    run = assert_quantized_close(Fn(fn), (torch.randn(4, 6),), max_lsb=1)
    assert run.lsb_errors()[1] == 0
