"""Creation ops (compile-time constants), tril/triu, dtype conversions and clone."""

import pytest
import torch

from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.many_ops import assert_each_close_to_torch


def test_creation_ops_become_constants():
    torch.manual_seed(9)
    x = torch.randn(2, 3, 4)
    fns = {
        "full": lambda t: t + torch.full((2, 3, 4), 2.5),
        "zeros": lambda t: t + torch.zeros(4),
        "ones": lambda t: t * torch.ones(3, 1),
        "new_full": lambda t: t.new_full((3, 4), -1.5) - t,
        "full_like": lambda t: torch.full_like(t, 7.0),
        "zeros_like": lambda t: torch.zeros_like(t) + 1,
        "ones_like_int": lambda t: torch.ones_like(t, dtype=torch.int32),
        "arange": lambda t: t + torch.arange(4),
        "arange_start_step": lambda t: t + torch.arange(-3, 9, 3),
        "arange_float": lambda t: t + torch.arange(0.5, 2.5, 0.5),
        "arange_int": lambda t: torch.arange(2, 14, 3, dtype=torch.int32),
        "eye": lambda t: t[0, :, :3] + torch.eye(3),
        "eye_rect": lambda t: t[0] + torch.eye(3, 4),
        "linspace": lambda t: t + torch.linspace(-1.0, 1.0, 4),
        "linspace_odd": lambda t: t[0, 0, 0] + torch.linspace(0.1, 0.7, 7),
        "scalar_tensor": lambda t: t + torch.scalar_tensor(3.0),
        "bool_full": lambda t: torch.logical_and(t > 0, torch.ones(4, dtype=torch.bool)),
    }
    run = assert_each_close_to_torch(fns, (x,))
    ops = run.report["partitions"][0]["aten_ops"]
    # eye and linspace are lowered whole (to_edge would rebuild them from arange at run time).
    assert "aten.eye.default" in ops and "aten.eye.m" in ops and "aten.linspace.default" in ops, ops


@pytest.mark.parametrize("shape", [(5, 5), (3, 4, 6), (2, 1, 6, 3)], ids=str)
def test_tril_triu(shape):
    torch.manual_seed(10)
    x = torch.randn(shape)
    fns = {f"tril({d})": (lambda t, d=d: torch.tril(t, d)) for d in (0, 1, -2)}
    fns.update({f"triu({d})": (lambda t, d=d: torch.triu(t, d)) for d in (0, 2, -1)})
    fns["tril_bool"] = lambda t: torch.tril(t > 0)
    fns["triu_int32"] = lambda t: torch.triu((t * 10).int(), 1)
    fns["triu_nan"] = lambda t: torch.triu(t / (t - t))  # masked-out NaN must become 0
    run = assert_each_close_to_torch(fns, (x,))
    ops = run.report["partitions"][0]["aten_ops"]
    assert "aten.tril.default" in ops and "aten.triu.default" in ops, ops


def test_conversions():
    x = torch.tensor([-2.7, -2.5, -1.5, -0.5, -0.0, 0.0, 0.4, 0.5, 1.5, 2.5, 2.7, 1000.9, -1e6])
    fns = {
        "float_to_int32_truncates": lambda t: t.to(torch.int32),
        "float_to_int64": lambda t: t.long(),
        "float_to_bool": lambda t: t.bool(),
        "float_to_half": lambda t: t.half(),
        "half_to_float": lambda t: t.half().float(),
        "bool_to_float": lambda t: (t > 0).float(),
        "bool_to_int": lambda t: (t > 0).int(),
        "int_to_float": lambda t: t.int().float() * 0.5,
        "int_to_bool": lambda t: t.int().bool(),
        "int64_to_int32": lambda t: t.long().int(),
        "clone_then_op": lambda t: t.clone() * 2,
        "op_then_clone": lambda t: (t * 3).clone(),
    }
    assert_each_close_to_torch(fns, (x,))


def test_int_to_int_conversions_with_int_profile():
    x = torch.tensor([-100, -1, 0, 1, 100, 127], dtype=torch.int32)
    fns = {"to_int8": lambda t: t.to(torch.int8), "to_int16": lambda t: t.to(torch.int16), "to_bool": lambda t: t.bool()}
    assert_each_close_to_torch(fns, (x,), target="TOSA-1.0+FP+INT")


def test_unsupported_configurations_stay_on_cpu():
    x = torch.tensor([1, 2, 3], dtype=torch.int32)
    reasons = cpu_reasons(lambda t: t.to(torch.int8), (x,))
    assert any("converting torch.int32 to torch.int8 needs the TOSA INT profile" in r for r in reasons), reasons
    reasons = cpu_reasons(lambda t: t.float() + torch.arange(2**33, 2**33 + 3), (x,))
    assert any("aten.arange.start_step: int64 values outside the int32 range" in r for r in reasons) or any(
        "int64 values outside the int32 range" in r for r in reasons
    ), reasons
    reasons = cpu_reasons(lambda t: t.to(torch.bfloat16), (torch.randn(3),))
    assert any("conversion involving torch.bfloat16 is not supported" in r for r in reasons), reasons


def test_fill_value_known_only_at_run_time_stays_on_cpu():
    reasons = cpu_reasons(lambda t, n: t + torch.full((3,), n.item() * 1.0), (torch.randn(3), torch.tensor(2)))
    assert any("aten.full.default: arguments ['mul'] are only known at run time" in r for r in reasons), reasons
