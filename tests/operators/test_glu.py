"""glu (lowered whole: two halves and a product).

INT: glu multiplies by sigmoid(b) kept to 22 (int8) or ~14 (int16) fractional bits: 1 LSB
for int8, 2 for int16 (the interpolated sigmoid's error times |a|). The int8 gate is the sum
of three int8 TABLEs of its base-256 digits (an int32 GATHER costs Ethos-U85 ~40 cycles per
element).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "glu" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from etarm.lowering.quantized_lookup import balanced_digits

from etarm.testing.cpu_fallback import Fn
from etarm.testing.many_ops import assert_each_close_to_torch
from etarm.testing.quantized_reference import assert_quantized_close


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_glu(dim):
    torch.manual_seed(6)
    run = assert_each_close_to_torch({"glu": lambda t: F.glu(t, dim)}, (torch.randn(4, 6, 2),))
    assert "aten.glu.default" in run.report["partitions"][0]["aten_ops"]


def test_int8_glu_halves_and_product():
    torch.manual_seed(3)
    fn = Fn(lambda x: (F.glu(x, 1), F.glu(x, -1), F.glu(x, 0)))
    run = assert_quantized_close(fn, (torch.randn(4, 6, 2) * 3,), max_lsb=1)
    partition = run.result.report["partitions"][0]
    assert "aten.glu.default" in partition["aten_ops"]
    assert partition["tosa_ops"].count("SLICE") == 6 and partition["tosa_ops"].count("GATHER") == 0
    assert partition["tosa_ops"].count("TABLE") == 3 * 3  # three digits per gate


def test_balanced_digits_sum_to_the_values():
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.integers(-(2**30) + 1, 2**30, 1000), [0, 127, 128, -128, -129, 2**22, -(2**30) + 1]])
    digits = balanced_digits(values)
    assert len(digits) <= 4 and all(d.dtype == np.int8 for d in digits)
    np.testing.assert_array_equal(sum(d.astype(np.int64) * 256**k for k, d in enumerate(digits)), values)
    assert len(balanced_digits(np.array([0, 100, -128]))) == 1
    assert len(balanced_digits(np.array([2**22]))) == 3


def test_int16_glu():
    torch.manual_seed(13)
    run = assert_quantized_close(
        Fn(lambda x: F.glu(x, 1)), (torch.randn(2, 8, 3) * 3,), target="TOSA-1.0+INT+int16", max_lsb=2
    )
    assert run.result.report["partitions"][0]["tosa_ops"].count("TABLE") == 1
