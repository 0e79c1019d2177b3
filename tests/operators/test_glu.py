"""glu (lowered whole: two halves and a product).

INT: glu multiplies by sigmoid(b) kept to 22 (int8) or ~14 (int16) fractional bits: 1 LSB
for int8, 2 for int16 (the interpolated sigmoid's error times |a|).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "glu" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

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
    assert partition["tosa_ops"].count("SLICE") == 6 and partition["tosa_ops"].count("GATHER") == 3


def test_int16_glu():
    torch.manual_seed(13)
    run = assert_quantized_close(
        Fn(lambda x: F.glu(x, 1)), (torch.randn(2, 8, 3) * 3,), target="TOSA-1.0+INT+int16", max_lsb=2
    )
    assert run.result.report["partitions"][0]["tosa_ops"].count("TABLE") == 1
