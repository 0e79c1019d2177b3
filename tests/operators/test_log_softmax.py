"""log_softmax (aten._log_softmax), lowered whole.

INT: softmax's integer exps and sums (test_softmax.py) and ln from interpolated tables
(~2**-19); only the final RESCALE rounds: 1 LSB (1.01: results near -80 carry a float32
rounding of ~0.003 int16 steps in the float reference itself). Also compiled by Vela.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "log_softmax" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_composites import INT8, INT16, check_with_vela, seeded
from etarm.testing.reduction_checks import one_dim_cases


def test_fp():
    cases = one_dim_cases({"log_softmax": lambda x, dim, keepdim: x.log_softmax(dim)})
    extreme = torch.tensor([[1e4, -1e4, 0.0, 3.0], [-float("inf"), 1.0, 2.0, -float("inf")], [88.0, 89.0, 90.0, 87.0]])
    cases.add("log_softmax(1) of extreme values", lambda x: x.log_softmax(1), extreme)
    cases.assert_close_to_torch()


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_quantized(target, tmp_path):
    fn = lambda a, b, c: (F.log_softmax(a, -1), F.log_softmax(b, -2), F.log_softmax(c, 3))  # noqa: E731
    check_with_vela(
        Fn(fn),
        (seeded(4, 10), seeded(2, 6, 5, scale=0.2), seeded(3, 2, 4, 33, scale=8.0)),
        target,
        tmp_path,
        max_lsb=1.01,
    )
