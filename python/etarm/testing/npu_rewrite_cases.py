"""Small TOSA INT graphs for the Ethos-U rewrite passes' tests, and the checks they share.

A rewrite must keep the graph's results bit-identical on the TOSA reference model; one
that lets Ethos-U55 run a graph must also make it pass the TOSA-level checks and compile
with Vela, and one that only saves cycles must cost Vela fewer of them.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import tosa_serializer as ts

from etarm.ethosu.compile_spec import EthosUCompileSpec
from etarm.ethosu.tosa_checks import check_graph
from etarm.ethosu.vela import VelaError
from etarm.passes.base import TosaPass
from etarm.testing.tosa_graphs import compile_with_vela, graph_input, int16_graph
from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir.graph import TosaGraph, TosaTensor

I8, I16, I32 = ts.DType.INT8, ts.DType.INT16, ts.DType.INT32


def rescale(graph: TosaGraph, tensor: TosaTensor, multiplier=1 << 30, shift=36, dtype=I8) -> TosaTensor:
    """RESCALE by multiplier * 2**-shift (per tensor, or per channel with a list)."""
    multipliers = np.atleast_1d(multiplier)
    per_channel = multipliers.size > 1
    inputs = [
        tensor, graph.const(multipliers, I32), graph.const(np.full(multipliers.size, shift), I8),
        graph.const([0], tensor.dtype), graph.const([0], dtype),
    ]  # fmt: skip
    return graph.emit(ts.Op.RESCALE, inputs, tensor.shape, dtype, True, ts.RoundingMode.SINGLE_ROUND, per_channel, False, False)


def widen(graph: TosaGraph, tensor: TosaTensor, zero_point=0, multiplier=1 << 30, shift=30) -> TosaTensor:
    """int8 -> int32 ``(q - zero_point) * multiplier * 2**-shift`` (by default the INT
    lowering's centring RESCALE; ADD operands are scaled up to a common scale)."""
    inputs = [tensor, graph.const([multiplier], I32), graph.const([shift], I8), graph.const([zero_point], I8), graph.const([0], I32)]
    return graph.emit(ts.Op.RESCALE, inputs, tensor.shape, I32, True, ts.RoundingMode.SINGLE_ROUND, False, False, False)


def conv(shape, kernel, stride, pad=(0, 0, 0, 0), dilation=(1, 1), depthwise=True, rescaled=True, zero_point=0):
    """A builder of a (depthwise) convolution of the int8 input ``shape``, then by default a RESCALE."""

    def build(graph: TosaGraph) -> TosaTensor:
        x = graph_input(graph, shape)
        n, h, w, c = shape
        rng = np.random.default_rng(0)
        weights = graph.const(rng.integers(-3, 4, (*kernel, c, 1) if depthwise else (6, *kernel, c)), I8)
        out_c = c if depthwise else 6
        oh = (h + pad[0] + pad[1] - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
        ow = (w + pad[2] + pad[3] - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
        op = ts.Op.DEPTHWISE_CONV2D if depthwise else ts.Op.CONV2D
        operands = [x, weights, graph.const(rng.integers(-50, 50, out_c), I32), graph.const([zero_point], I8), graph.const([0], I8)]
        acc = graph.emit(op, operands, (n, oh, ow, out_c), I32, list(pad), list(stride), list(dilation), False, I32)
        if not rescaled:
            return acc
        return rescale(graph, acc, multiplier=list(range(1 << 30, (1 << 30) + out_c)) if out_c > 1 else 1 << 30)

    return build


def global_pool(shape=(1, 25, 5, 32)):
    """A builder of the INT lowering of a global average pool: a depthwise convolution of
    unit weights over the whole image, then RESCALE."""

    def build(graph: TosaGraph) -> TosaTensor:
        x = graph_input(graph, shape)
        n, h, w, c = shape
        operands = [x, graph.const(np.ones((h, w, c, 1)), I8), graph.const(np.zeros(c), I32), graph.const([-3], I8), graph.const([0], I8)]
        acc = graph.emit(ts.Op.DEPTHWISE_CONV2D, operands, (n, 1, 1, c), I32, [0, 0, 0, 0], [h, w], [1, 1], False, I32)
        return rescale(graph, acc, 1 << 30, 37)

    return build


def sample_inputs(graph: TosaGraph) -> list[np.ndarray]:
    """Random int8/int16 values for each input of ``graph`` (the same on every call)."""
    rng = np.random.default_rng(3)
    arrays = []
    for name in graph.inputs:
        tensor = graph.tensors[name]
        info = np.iinfo(np.int8 if tensor.dtype == I8 else np.int16)
        arrays.append(rng.integers(info.min, info.max + 1, tensor.shape).astype(info.dtype))
    return arrays


def vela_refusal(graph: TosaGraph, target: str, directory) -> str | None:
    """None when Vela compiles the graph for ``target``, else its message."""
    try:
        compile_with_vela(graph, EthosUCompileSpec(target), directory)
        return None
    except VelaError as exc:
        return str(exc)


def vela_cycles(graph: TosaGraph, target: str, directory) -> int:
    """Vela's cycle estimate for the graph on ``target``."""
    return compile_with_vela(graph, EthosUCompileSpec(target), directory).estimates["cycles_total"]


def built(build: Callable[[TosaGraph], TosaTensor]) -> TosaGraph:
    """A new int16-extension graph whose output is what ``build`` makes of it."""
    graph = int16_graph()
    graph.mark_output(build(graph))
    return graph


def family_key(target: str) -> str:
    """The Vela family key (``u55``, ``u65``, ``u85``) a family-dependent pass takes."""
    return EthosUCompileSpec(target).family.key


def assert_exact(graph: TosaGraph, rewrite: TosaPass, rewrites: int = 1) -> None:
    """``rewrite`` rewrites ``graph`` ``rewrites`` times, and its results stay the same."""
    inputs = sample_inputs(graph)
    before = run_tosa(graph.serialize(), inputs)
    assert rewrite.run(graph) == rewrites
    for got, want in zip(run_tosa(graph.serialize(), inputs), before, strict=True):
        np.testing.assert_array_equal(got, want)


def assert_lets_u55_run(build: Callable[[TosaGraph], TosaTensor], rewrite: TosaPass, directory) -> TosaGraph:
    """Ethos-U55 refuses the graph ``build`` makes; ``rewrite`` rewrites it once, exactly,
    into one that passes the TOSA checks and that Vela compiles. Returns that graph."""
    graph = built(build)
    # Refused as lowered: by Vela, or by the documented limits the TOSA checks apply (Vela 5.2.0
    # compiles a global window's stride and an int32 -> int8 CAST, which its documentation excludes).
    assert check_graph(graph, "u55") or vela_refusal(graph, "ethos-u55-128", directory), "nothing to rewrite"
    assert_exact(graph, rewrite)
    assert check_graph(graph, "u55") == []
    assert vela_refusal(graph, "ethos-u55-128", directory) is None
    return graph


def assert_saves_cycles(build: Callable[[TosaGraph], TosaTensor], rewrite: TosaPass, target: str, directory, strictly=True) -> TosaGraph:
    """``rewrite`` rewrites the graph ``build`` makes once, exactly, and Vela estimates fewer
    cycles for it on ``target`` (or, not ``strictly``, no more). Returns that graph."""
    graph = built(build)
    before = vela_cycles(graph, target, directory)
    assert_exact(graph, rewrite)
    after = vela_cycles(graph, target, directory)
    assert after < before if strictly else after <= before, f"{before} cycles before, {after} after"
    return graph
