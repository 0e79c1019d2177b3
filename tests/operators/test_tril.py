"""tril (a SELECT with a constant mask), of floats, bools and int32.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "tril" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.packed_cases import Cases


def test_fp():
    cases = Cases()
    for shape in [(5, 5), (3, 4, 6), (2, 1, 6, 3)]:
        torch.manual_seed(10)
        x = torch.randn(shape)
        for d in (0, 1, -2):
            cases.add(f"tril({d}) {shape}", lambda t, d=d: torch.tril(t, d), x)
        cases.add(f"tril_bool {shape}", lambda t: torch.tril(t > 0), x)
    run = cases.assert_close_to_torch()
    assert "aten.tril.default" in run.result.report["partitions"][0]["aten_ops"]
