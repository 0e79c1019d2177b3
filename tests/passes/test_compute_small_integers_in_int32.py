"""ComputeSmallIntegersInInt32: int8/int16 integer arithmetic runs in int32 between casts, and
the lowered graph is valid TOSA that gives torch's results, overflow included."""

import numpy as np
import pytest
import torch

from etarm.compiler import compile_model
from etarm.passes.compute_small_integers_in_int32 import ComputeSmallIntegersInInt32
from etarm.pte import delegate_payloads
from etarm.testing.edge_programs import assert_same_as_module, calls, casts, dtype, edge_program
from etarm.tosa.reference_model import run_tosa


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, y):
        return self.fn(x, y)


OPS = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "add_scalar": lambda x, y: x + 3,
    "neg": lambda x, y: -x,
    "abs": lambda x, y: torch.abs(x),
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "clamp": lambda x, y: torch.clamp(x, -5, 7),
    "gt": lambda x, y: x > y,
    "eq": lambda x, y: x == y,
    "where": lambda x, y: torch.where(x > y, x, y),
    "floor_divide": lambda x, y: torch.floor_divide(x, y.abs() + 1),
}


def operands(dtype_):
    info = torch.iinfo(dtype_)
    torch.manual_seed(0)
    x = torch.randint(info.min, info.max + 1, (3, 8), dtype=torch.int32).to(dtype_)
    y = torch.randint(info.min, info.max + 1, (3, 8), dtype=torch.int32).to(dtype_)
    x[0, :4] = info.max  # overflowing sums and products wrap, as in torch
    y[0, :4] = info.max
    return x, y


def test_the_operands_are_cast_to_int32_and_the_result_back():
    x, y = operands(torch.int8)
    program = edge_program(Fn(OPS["add"]), (x, y), [ComputeSmallIntegersInInt32()])
    (add,) = calls(program, "aten.add.Tensor")
    assert [dtype(arg) for arg in add.args] == [torch.int32, torch.int32]
    assert dtype(add) == torch.int32
    assert sorted(str(dtype(cast)) for cast in casts(program)) == ["torch.int32", "torch.int32", "torch.int8"]
    assert_same_as_module(program, Fn(OPS["add"]), (x, y))


def test_quantized_and_wide_operands_are_left_alone():
    x = torch.randint(-5, 5, (4,), dtype=torch.int32)
    program = edge_program(Fn(OPS["add"]), (x, x), [ComputeSmallIntegersInInt32()])
    assert casts(program) == []


@pytest.mark.parametrize("dtype_", [torch.int8, torch.int16])
@pytest.mark.parametrize("name", OPS)
def test_small_integer_ops_give_torchs_results_on_the_reference_model(name, dtype_):
    x, y = operands(dtype_)
    module = Fn(OPS[name])
    result = compile_model(module, (x, y), "TOSA-1.0+INT", quantize=True)
    assert result.report["cpu_ops"] == []
    (payload,) = delegate_payloads(result.pte)
    (partition,) = result.report["partitions"]
    (got,) = run_tosa(payload.data, [(x, y)[i].numpy() for i in partition["inputs_from"]])
    want = module(x, y).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
