"""Property tests: random shapes and parameters, FP lowering against torch.

The per-op files pin chosen cases; here hypothesis draws ranks 1-5, broadcasting
patterns, odd sizes, negative dims and conv/pool geometry the authors did not think
of. Each example is a full compile, so the example counts are small; the database is
off so every run draws afresh from the fixed seed (reproducible in CI).
"""

import hypothesis.strategies as st
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, seed, settings

from etarm.testing.cpu_fallback import Fn
from etarm.testing.tosa_reference import assert_close_to_torch

PROPERTY = settings(
    max_examples=6, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

dims = st.integers(min_value=1, max_value=7)
shapes = st.lists(dims, min_size=1, max_size=5).map(tuple)


@st.composite
def broadcast_pair(draw):
    """Two shapes torch broadcasts: each axis of the shorter one is kept, 1, or dropped in front."""
    shape = draw(shapes)
    other = [draw(st.sampled_from([size, 1])) for size in shape]
    drop = draw(st.integers(min_value=0, max_value=len(shape) - 1))
    return shape, tuple(other[drop:])


def _randn(shape, seed_value=0):
    generator = torch.Generator().manual_seed(seed_value)
    return torch.randn(shape, generator=generator)


@PROPERTY
@given(pair=broadcast_pair(), op=st.sampled_from(["add", "sub", "mul", "maximum", "minimum", "where_gt"]))
def test_binary_broadcasting(pair, op):
    functions = {
        "add": torch.add,
        "sub": torch.sub,
        "mul": torch.mul,
        "maximum": torch.maximum,
        "minimum": torch.minimum,
        "where_gt": lambda x, y: torch.where(x > y, x, y * 2.0),
    }
    first, second = pair
    assert_close_to_torch(Fn(functions[op]), (_randn(first), _randn(second, 1)))


@st.composite
def reduction_case(draw):
    shape = draw(shapes)
    rank = len(shape)
    axes = draw(st.lists(st.integers(min_value=-rank, max_value=rank - 1), min_size=1, max_size=rank, unique_by=lambda a: a % rank))
    return shape, axes, draw(st.booleans())


@PROPERTY
@given(case=reduction_case(), op=st.sampled_from(["sum", "mean", "amax", "amin", "var"]))
def test_reductions(case, op):
    shape, axes, keepdim = case
    functions = {
        "sum": lambda x: torch.sum(x, axes, keepdim=keepdim),
        "mean": lambda x: torch.mean(x, axes, keepdim=keepdim),
        "amax": lambda x: torch.amax(x, axes, keepdim=keepdim),
        "amin": lambda x: torch.amin(x, axes, keepdim=keepdim),
        "var": lambda x: torch.var(x, axes, keepdim=keepdim, correction=0),
    }
    assert_close_to_torch(Fn(functions[op]), (_randn(shape),), atol=1e-4, rtol=1e-4)


@PROPERTY
@given(
    shape=st.lists(dims, min_size=2, max_size=5).map(tuple),
    data=st.data(),
)
def test_data_movement(shape, data):
    """A permutation, a transpose, a narrow along a negative dim and a flip, chained."""
    rank = len(shape)
    permutation = data.draw(st.permutations(range(rank)))
    moved_shape = [shape[axis] for axis in permutation]
    moved_shape[0], moved_shape[-1] = moved_shape[-1], moved_shape[0]
    dim = data.draw(st.integers(min_value=-rank, max_value=-1))
    start = data.draw(st.integers(min_value=0, max_value=moved_shape[dim] - 1))

    def fn(x):
        moved = x.permute(permutation).transpose(0, -1)
        return moved.narrow(dim, start, moved_shape[dim] - start).flip(-1) * 1.5

    assert_close_to_torch(Fn(fn), (_randn(shape),))


@PROPERTY
@given(
    batch=st.integers(min_value=1, max_value=2),
    channels=st.sampled_from([(3, 4, 1), (4, 6, 2), (6, 6, 6)]),
    size=st.tuples(st.integers(min_value=5, max_value=11), st.integers(min_value=5, max_value=11)),
    kernel=st.tuples(st.integers(min_value=1, max_value=3), st.integers(min_value=1, max_value=3)),
    stride=st.tuples(st.integers(min_value=1, max_value=2), st.integers(min_value=1, max_value=2)),
    padding=st.integers(min_value=0, max_value=1),
    dilation=st.integers(min_value=1, max_value=2),
    bias=st.booleans(),
)
def test_conv2d_geometry(batch, channels, size, kernel, stride, padding, dilation, bias):
    in_channels, out_channels, groups = channels
    seed_value = sum(size) + sum(kernel)
    conv = torch.nn.Conv2d(in_channels, out_channels, kernel, stride, padding, dilation, groups, bias)
    torch.manual_seed(seed_value)
    conv.reset_parameters()
    assert_close_to_torch(conv.eval(), (_randn((batch, in_channels, *size), seed_value),), atol=1e-4, rtol=1e-4)


@PROPERTY
@given(
    size=st.tuples(st.integers(min_value=4, max_value=12), st.integers(min_value=4, max_value=12)),
    kernel=st.integers(min_value=2, max_value=3),
    stride=st.integers(min_value=1, max_value=3),
    padding=st.integers(min_value=0, max_value=1),
    ceil_mode=st.booleans(),
    kind=st.sampled_from(["max", "avg"]),
)
@seed(5)
def test_pool2d_geometry(size, kernel, stride, padding, ceil_mode, kind):
    pool = F.max_pool2d if kind == "max" else F.avg_pool2d
    fn = lambda x: pool(x, kernel, stride, padding, ceil_mode=ceil_mode)  # noqa: E731
    assert_close_to_torch(Fn(fn), (_randn((1, 3, *size)),))
