"""std (with a correction): var's integer statistics and a square root (INT: 1 LSB, also compiled by Vela).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "std" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_composites import INT8, INT16, check_with_vela, seeded
from etarm.testing.reduction_checks import multi_dim_cases, whole_tensor_input


def test_fp():
    cases = multi_dim_cases(
        {
            "std1": lambda x, dim, keepdim: x.std(dim, keepdim=keepdim),
            "std0": lambda x, dim, keepdim: torch.std(x, dim, keepdim=keepdim, unbiased=False),
        }
    )
    cases.add("std(correction=0)", lambda x: x.std(correction=0), whole_tensor_input())
    cases.assert_close_to_torch()


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_quantized(target, tmp_path):
    """keepdim, negative dims, all dims."""
    fn = lambda a, b: (torch.std(a, -1, keepdim=True), torch.std(b, correction=0))  # noqa: E731
    check_with_vela(Fn(fn), (seeded(3, 9, scale=5.0), seeded(3, 4, 5)), target, tmp_path)
