"""``etarm run MODEL.pte [--inputs FILE ...] [--model MODEL]``: runs a .pte on this host
(etarm.runtime) and, given the model it was compiled from, compares it with torch;
``etarm run MODEL.bpte`` checks a bundled program's test cases, as etarm's runners do."""

from __future__ import annotations

import os

import numpy as np
import torch

from etarm import targets
from etarm.bundleio import Bundle, compare, is_bpte, read_bpte
from etarm.compiler import quantize_model
from etarm.errors import EtarmError
from etarm.models import load_model
from etarm.pte import cpu_operators, delegate_payloads
from etarm.runtime import Program, RunResult
from etarm.tosa_ir.mapping import ML_FLOATS

# Values printed per output; the rest are summarised by their count.
_SHOWN_VALUES = 8


def _read_inputs(paths: list[str]) -> list:
    inputs = []
    for path in paths:
        if not os.path.isfile(path):
            raise EtarmError(f"input file '{path}' does not exist")
        try:
            value = np.load(path) if path.endswith(".npy") else torch.load(path, weights_only=True)
        except Exception as exc:
            raise EtarmError(f"cannot read inputs from '{path}': {type(exc).__name__}: {exc}") from exc
        inputs.extend(value if isinstance(value, (tuple, list)) else [value])
    return inputs


def _as_list(value) -> list:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _as_torch(value) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value
    array = np.asarray(value)
    if array.dtype in ML_FLOATS:  # ml_dtypes' bf16/fp8 (torch has no numpy form of them): exact via float32
        return torch.from_numpy(array.astype(np.float32)).to(getattr(torch, array.dtype.name))
    return torch.as_tensor(array)


def _describe(value) -> str:
    if not isinstance(value, np.ndarray):
        return f"{type(value).__name__} {value}"
    flat = value.reshape(-1)
    floats = value.dtype.kind == "f" or value.dtype in ML_FLOATS
    shown_values = flat[:_SHOWN_VALUES].astype(np.float64) if floats else flat[:_SHOWN_VALUES]
    shown = " ".join(f"{v:.6g}" if floats else str(v) for v in shown_values.tolist())
    more = f" ... ({flat.size} values)" if flat.size > _SHOWN_VALUES else ""
    return f"{value.dtype} {list(value.shape)}: {shown}{more}"


def _print_comparison(label: str, got: list, reference) -> None:
    for index, (value, want) in enumerate(zip(got, _as_list(reference))):
        if isinstance(want, torch.Tensor):  # bf16/fp8 have no numpy form: compared as float64 anyway
            want = want.detach().double().numpy() if want.is_floating_point() else want.detach().numpy()
        else:
            want = np.asarray(want)
        if not isinstance(value, np.ndarray) or value.shape != want.shape:
            print(f"{label:<13}output {index}: shape {np.shape(value)} is not the model's {list(want.shape)}")
            continue
        diff = np.abs(value.astype(np.float64) - want.astype(np.float64))
        largest = float(np.abs(want).max()) if want.size else 0.0
        print(
            f"{label:<13}output {index}: max |diff| {diff.max() if diff.size else 0:.3g} (largest |value| {largest:.3g})"
        )


def _quantized_reference(pte: bytes, model, inputs: tuple, calibration_data):
    """The quantized model the program was lowered from, rebuilt with its target's default
    quantizer (from the compile spec stored in the .pte); None for a float program."""
    if not any("quantize_per" in op for op in cpu_operators(pte)):
        return None
    for payload in delegate_payloads(pte):
        family = targets.family_of_backend(payload.backend_id)
        if family is not None and family.read_compile_spec is not None:
            spec = family.read_compile_spec(list(payload.compile_specs))
            return quantize_model(model, inputs, family.default_quantizer(spec, {}), calibration_data)
    return None


def _print_run(path: str, size: int, program: Program, result: RunResult, inputs_from: str) -> None:
    print(f"program      {path} ({size} bytes), delegates: {', '.join(program.backends) or 'none'}")
    print(f"inputs       {inputs_from}")
    for index, value in enumerate(result.outputs):
        print(f"output {index}     {_describe(value)}")
    print(f"time         execute {result.seconds * 1e3:.3f} ms on this host")
    memory = result.memory
    print(
        f"memory       {memory['used_bytes']} bytes of the runner's arena (planned {memory['planned_bytes']}, "
        f"inputs {memory['input_bytes']}, method {memory['method_bytes']})"
    )


def _check_bundle(path: str, bundle: Bundle) -> int:
    """Runs every test case of a .bpte and judges it as the C++ runners do; 1 on any failure."""
    program = Program(bundle.program)
    print(f"bundle       {path}: {len(bundle.test_cases)} test case(s), atol {bundle.atol:.3g} rtol {bundle.rtol:.3g}")
    passed = True
    for index, case in enumerate(bundle.test_cases):
        tensors = [value for value in case.inputs if isinstance(value, np.ndarray)]
        result = program.run(tensors)
        for number, value in enumerate(result.outputs):
            print(f"output {number}     {_describe(value)}")
        judged = [
            compare(got, want, bundle.atol, bundle.rtol) for got, want in zip(result.outputs, case.expected_outputs)
        ]
        worst = max((largest for largest, _ in judged), default=0.0)
        outside = sum(count for _, count in judged)
        total = sum(want.size for want in case.expected_outputs)
        print(f"test case {index}  max |got - expected| = {worst:.3g}, {outside} of {total} values outside tolerance")
        passed = passed and outside == 0 and len(result.outputs) == len(case.expected_outputs)
    print("PASS" if passed else "FAIL")
    return 0 if passed else 1


def run(args) -> int:
    if not os.path.isfile(args.pte):
        raise EtarmError(f"program file '{args.pte}' does not exist")
    with open(args.pte, "rb") as f:
        pte = f.read()
    if is_bpte(pte):
        if args.inputs or args.model:
            raise EtarmError("a .bpte carries its inputs and expected outputs: --inputs and --model do not apply")
        return _check_bundle(args.pte, read_bpte(pte))
    program = Program(pte)
    model = None
    if args.model:
        model, example_inputs = load_model(args.model, args.model_input)
    if args.inputs:
        inputs, inputs_from = _read_inputs(args.inputs), " ".join(args.inputs)
    elif model is not None:
        inputs, inputs_from = list(example_inputs), f"the example inputs of {args.model}"
    else:
        specs = [spec for spec in program.input_specs if spec.is_tensor]
        inputs, inputs_from = [np.ones(spec.shape, spec.dtype) for spec in specs], "ones (no --inputs or --model)"
    result = program.run(inputs)
    _print_run(args.pte, len(pte), program, result, inputs_from)
    if model is not None:
        torch_inputs = tuple(_as_torch(value) for value in inputs)
        with torch.no_grad():
            _print_comparison("vs torch", result.outputs, model.eval()(*torch_inputs))
            quantized = _quantized_reference(pte, model, example_inputs, args.calibration_data)
            if quantized is not None:
                _print_comparison("vs quantized", result.outputs, quantized(*torch_inputs))
    return 0
