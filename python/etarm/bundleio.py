"""``--bundleio``: the compiled program, its example inputs, the outputs it should compute and how
close is close enough, in one ExecuTorch BundledProgram (.bpte) that etarm's runner checks.

The tolerance travels in the .bpte as a second method test suite named ``TOLERANCE_METHOD`` with
one test case whose inputs are two Doubles (atol, rtol) and no expected outputs. ExecuTorch's own
tools look suites up by method name, so they never see it; etarm's runner
(runtime/runner/bundled_program.h) reads it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from torch.utils import _pytree as pytree

from etarm.errors import EtarmError
from etarm.op_names import op_name

METHOD = "forward"
TOLERANCE_METHOD = "etarm.tolerance"
FILE_IDENTIFIER = b"BP08"  # bundled_program_schema.fbs
# ExecuTorch's verify_method_outputs defaults, for bundles without an etarm.tolerance suite.
EXECUTORCH_ATOL = 1e-8
EXECUTORCH_RTOL = 1e-5

# Float programs: the runtime's kernels accumulate in another order (and with other vector
# widths) than torch's, an error of a few float32 ulps per term that grows with the values'
# magnitude; 1e-4 of the largest expected value (at least 1e-4) plus 1e-4 of each value leaves
# room for that and still catches any real miscompute.
FLOAT_ATOL = 1e-4
FLOAT_RTOL = 1e-4


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """|got - expected| <= atol + rtol * |expected| for every float output value."""

    atol: float
    rtol: float


def _tolerance(expected_outputs: list[torch.Tensor], output_steps: list[float]) -> Tolerance:
    """The float allowance, plus for quantized programs one quantization step of the coarsest
    output: the integer kernels may round a value one step away from the eager Q/DQ model that
    produced the expected outputs (round-half-even in torch's fake quantization, the kernels'
    own rounding in the requantizations), which is a correct result."""
    largest = max((t.abs().max().item() for t in expected_outputs if t.is_floating_point() and t.numel()), default=0.0)
    return Tolerance(atol=FLOAT_ATOL * max(1.0, largest) + max(output_steps, default=0.0), rtol=FLOAT_RTOL)


def _output_steps(quantized_model: torch.fx.GraphModule) -> list[float]:
    """The quantization scale of each output the model dequantizes per tensor (its last op).

    Read from the convert_pt2e'd graph rather than from the report's partitions, so programs
    whose output dequantize runs on the CPU (or that have no partition) are covered too.
    """
    steps = []
    for value in pytree.tree_leaves(quantized_model.graph.output_node().args[0]):
        if isinstance(value, torch.fx.Node) and "dequantize_per_tensor" in op_name(value.target):
            scale = value.args[1]
            if isinstance(scale, float):
                steps.append(scale)
    return steps


def _standalone(value):
    """A contiguous tensor owning its storage: BundledProgram copies a tensor's whole storage,
    which for a view (a slice, a transposed output) is not the tensor's own data."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone(memory_format=torch.contiguous_format)
    return value


def build_bpte(executorch_program, reference_model: torch.nn.Module, example_inputs: tuple, quantized: bool):
    """The .bpte bytes and what the report says about them.

    ``reference_model`` computes the expected outputs from ``example_inputs``: the float model
    for float programs, the quantized (convert_pt2e) model that was lowered for quantized ones.
    """
    # Imported on use: executorch.devtools adds seconds to every compile's start-up.
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    from executorch.devtools.bundled_program.core import BundledProgram
    from executorch.devtools.bundled_program.schema import bundled_program_schema as schema
    from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer

    inputs = tuple(_standalone(v) for v in example_inputs)
    with torch.no_grad():
        # A copy of the inputs: a model that writes to its inputs must not change the bundled ones.
        outputs = reference_model(*(_standalone(v) for v in example_inputs))
    expected = [_standalone(t) for t in pytree.tree_leaves(outputs)]
    if not all(isinstance(t, torch.Tensor) for t in expected):
        raise EtarmError("--bundleio needs a model whose outputs are all tensors")
    try:
        bundled = BundledProgram(executorch_program, [MethodTestSuite(METHOD, [MethodTestCase(inputs, expected)])])
    except AssertionError as exc:  # BundledProgram's checks of the inputs/outputs against the program
        raise EtarmError(f"--bundleio: {' '.join(str(exc).split())}") from exc

    steps = _output_steps(reference_model) if quantized else []
    tolerance = _tolerance(expected, steps)
    # BundledProgram refuses suites for methods the program lacks: the tolerance suite joins
    # the schema object it serializes (serialize_to_schema caches and returns that object).
    suites = bundled.serialize_to_schema().method_test_suites
    suites.append(
        schema.BundledMethodTestSuite(
            method_name=TOLERANCE_METHOD,
            test_cases=[
                schema.BundledMethodTestCase(
                    inputs=[schema.Value(val=schema.Double(double_val=v)) for v in (tolerance.atol, tolerance.rtol)],
                    expected_outputs=[],
                )
            ],
        )
    )
    suites.sort(key=lambda suite: suite.method_name)  # the order BundledProgram keeps
    bpte = serialize_from_bundled_program_to_flatbuffer(bundled)
    info = {
        "method": METHOD,
        "test_cases": 1,
        "expected_outputs_from": "quantized model" if quantized else "float model",
        "atol": tolerance.atol,
        "rtol": tolerance.rtol,
        "output_quantization_steps": steps,
        "bpte_bytes": len(bpte),
    }
    return bpte, info


@dataclasses.dataclass
class BundledTestCase:
    inputs: list  # numpy arrays and Python scalars, in the method's input order
    expected_outputs: list[np.ndarray]


@dataclasses.dataclass
class Bundle:
    program: bytes  # the .pte inside
    test_cases: list[BundledTestCase]  # the forward method's
    atol: float
    rtol: float


# executorch_flatbuffer.ScalarType values (scalar_type.fbs) -> numpy dtypes.
_NUMPY_DTYPES = {
    0: np.uint8,
    1: np.int8,
    2: np.int16,
    3: np.int32,
    4: np.int64,
    5: np.float16,
    6: np.float32,
    7: np.float64,
    11: np.bool_,
}


def is_bpte(data: bytes) -> bool:
    return data[4:8] == FILE_IDENTIFIER


def _value(value):
    val = value.val
    if not hasattr(val, "scalar_type"):  # Int, Bool, Double
        return next(v for k, v in vars(val).items() if k.endswith("_val"))
    dtype = _NUMPY_DTYPES.get(val.scalar_type)
    if dtype is None:
        raise EtarmError(
            f"the bundle holds a tensor of ExecuTorch scalar type {val.scalar_type}, which etarm cannot compare"
        )
    return np.frombuffer(val.data, dtype=dtype).reshape(val.sizes).copy()


def read_bpte(data: bytes) -> Bundle:
    """The program, the forward test cases and the tolerance of a .bpte (ExecuTorch's defaults
    when it carries no etarm.tolerance suite, e.g. one from aot_arm_compiler)."""
    from executorch.devtools.bundled_program.serialize import deserialize_from_flatbuffer_to_bundled_program

    try:
        bundled = deserialize_from_flatbuffer_to_bundled_program(data)
    except Exception as exc:
        raise EtarmError(f"not a readable .bpte: {type(exc).__name__}: {exc}") from exc
    suites = {suite.method_name: suite for suite in bundled.method_test_suites}
    if METHOD not in suites:
        raise EtarmError(f"the bundle has no test cases for {METHOD}")
    cases = [
        BundledTestCase([_value(v) for v in case.inputs], [_value(v) for v in case.expected_outputs])
        for case in suites[METHOD].test_cases
    ]
    atol, rtol = EXECUTORCH_ATOL, EXECUTORCH_RTOL
    if TOLERANCE_METHOD in suites and suites[TOLERANCE_METHOD].test_cases:
        atol, rtol = (_value(v) for v in suites[TOLERANCE_METHOD].test_cases[0].inputs)
    return Bundle(bytes(bundled.program), cases, atol, rtol)


def compare(got, expected: np.ndarray, atol: float, rtol: float) -> tuple[float, int]:
    """The largest |got - expected| and how many values lie outside the tolerance (floats:
    atol + rtol * |expected|; integers and bools: exactly), as the C++ runners judge it."""
    got = np.asarray(got)
    if got.shape != expected.shape:
        return float("inf"), expected.size
    diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
    allowed = atol + rtol * np.abs(expected.astype(np.float64)) if expected.dtype.kind == "f" else 0.0
    return (float(diff.max()) if diff.size else 0.0), int(np.count_nonzero(~(diff <= allowed)))
