"""arange: a compile-time constant (int64 values must fit int32).

INT: a float constant is stored quantized with the parameters its consumer reads it with.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "arange" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.cpu_fallback import Fn, cpu_reasons
from etarm.testing.many_ops import assert_each_close_to_torch
from etarm.testing.quantized_reference import assert_quantized_close


def test_fp():
    torch.manual_seed(9)
    fns = {
        "arange": lambda t: t + torch.arange(4),
        "arange_start_step": lambda t: t + torch.arange(-3, 9, 3),
        "arange_float": lambda t: t + torch.arange(0.5, 2.5, 0.5),
        "arange_int": lambda t: torch.arange(2, 14, 3, dtype=torch.int32),
    }
    assert_each_close_to_torch(fns, (torch.randn(2, 3, 4),))


def test_values_beyond_int32_stay_on_cpu():
    x = torch.tensor([1, 2, 3], dtype=torch.int32)
    reasons = cpu_reasons(lambda t: t.float() + torch.arange(2**33, 2**33 + 3), (x,))
    assert any("int64 values outside the int32 range" in r for r in reasons), reasons


def test_float_constant_is_stored_quantized():
    torch.manual_seed(36)
    assert_quantized_close(Fn(lambda x: x * torch.arange(6.0)), (torch.randn(4, 6),), max_lsb=1)
