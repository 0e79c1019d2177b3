"""triu (a SELECT with a constant mask), of floats, bools and int32.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "triu" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.packed_cases import Cases


def test_fp():
    cases = Cases()
    for shape in [(5, 5), (3, 4, 6), (2, 1, 6, 3)]:
        torch.manual_seed(10)
        x = torch.randn(shape)
        for d in (0, 2, -1):
            cases.add(f"triu({d}) {shape}", lambda t, d=d: torch.triu(t, d), x)
        cases.add(f"triu_int32 {shape}", lambda t: torch.triu((t * 10).int(), 1), x)
        cases.add(f"triu_nan {shape}", lambda t: torch.triu(t / (t - t)), x)  # masked-out NaN must become 0
    run = cases.assert_close_to_torch()
    assert "aten.triu.default" in run.result.report["partitions"][0]["aten_ops"]
