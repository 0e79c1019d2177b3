"""The compile flow: nn.Module -> export -> (quantize) -> partition + lower -> .pte + report."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import operator
import os
import re
import time

import torch

from etarm import lazy_inductor_pass, progress

lazy_inductor_pass.install()  # before ExecuTorch imports the pass (see the module)

from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig
from executorch.exir.lowered_backend_module import get_lowered_submodules

from etarm.bundleio import build_bpte
from etarm.composite_op_scan import reuse_composite_op_scan
from etarm.composite_overrides import lighter_composite_overrides
from etarm.delegate_output_shapes import delegate_outputs_from_metadata
from etarm.edge_lowering import lower_to_edge
from etarm.errors import EtarmError
from etarm.idle_edge_passes import skip_idle_edge_passes
from etarm.op_names import op_name
from etarm.passes.base import Stage
from etarm.quantization.pt2e_flow import calibration_batches, quantize_program
from etarm.shared_provenance import shared_node_provenance
from etarm.targets import default_quantizer, make_partitioner
from etarm.tosa_ir.specification import TosaSpecification


@dataclasses.dataclass
class CompileResult:
    pte: bytes
    report: dict
    # quantize=True: the convert_pt2e'd model that was lowered (Q/DQ ops, runs in eager).
    quantized_model: torch.nn.Module | None = None
    etrecord: bytes | None = None  # compile_model(etrecord=True)
    # Per partition, each TOSA operator's ATen node and source line (etarm compile --enable_debug_mode).
    debug_map: list | None = None
    # compile_model(bundleio=True): the ExecuTorch BundledProgram (.bpte; etarm/bundleio.py).
    bpte: bytes | None = None


class _Timer:
    def __init__(self):
        self.stages: dict[str, float] = {}

    @contextlib.contextmanager
    def stage(self, name: str):
        start = time.perf_counter()
        try:
            with progress.current().step(name.replace("_", " ")):
                yield
        finally:
            self.stages[name] = round(time.perf_counter() - start, 4)


def _fake_io(fake) -> dict:
    return {"dtype": str(fake.dtype).replace("torch.", ""), "shape": list(fake.shape)}


def _input_entry(value):
    """The report's entry for one example input: a tensor's dtype and shape, the same for the
    tensors of a list or tuple, and anything else (a number, a bool, None) as the constant
    torch.export specialises the program to."""
    if isinstance(value, torch.Tensor):
        return _fake_io(value)
    if isinstance(value, (list, tuple)):
        return [_input_entry(item) for item in value]
    return {"constant": value if value is None or isinstance(value, (bool, int, float, str)) else repr(value)}


_QUANTIZE = "quantized_decomposed.quantize_per_tensor.default"
_CASTS = ("dim_order_ops._to_dim_order_copy.default", "aten._to_copy.default")


def _input_conversion(node: torch.fx.Node) -> bool:
    """A CPU op that only changes how a program input is represented on its way into a
    partition: its quantize (the quantized flow's boundary) or the int32 cast of int64 ids."""
    if node.op != "call_function" or not isinstance(node.args[0], torch.fx.Node):
        return False
    name = op_name(node.target)
    if name == _QUANTIZE:
        return True
    values = [n.meta.get("val") for n in (node.args[0], node)]
    dtypes = [value.dtype if isinstance(value, torch.Tensor) else None for value in values]
    return name in _CASTS and dtypes == [torch.int64, torch.int32]


def _input_source(argument: torch.fx.Node) -> torch.fx.Node:
    """The node a delegate argument carries, seen through its input conversions on CPU."""
    while _input_conversion(argument):
        argument = argument.args[0]
    return argument


def _partitions(edge_program) -> list[dict]:
    """Each delegate call's partition; ``inputs_from`` gives, per partition input, the index
    of the program's user input it reads, directly or through that input's quantize or int32
    cast on CPU (None when another CPU op produces it)."""
    user_inputs = [spec.arg.name for spec in edge_program.graph_signature.input_specs if spec.kind.name == "USER_INPUT"]
    partitions = []
    for _name, lowered, call in get_lowered_submodules(edge_program.graph_module):
        original = lowered.original_module
        ops = sorted(
            {
                op_name(n.target)
                for n in original.graph.nodes
                if n.op == "call_function" and n.target is not operator.getitem
            }
        )
        info = dict(lowered.meta.get("_delegate_info_meta") or {})
        for in_debug_map in ("tosa_op_origins", "npu_operations"):
            info.pop(in_debug_map, None)
        sources = [_input_source(a).name for a in call.args[1:]]
        inputs_from = [user_inputs.index(name) if name in user_inputs else None for name in sources]
        partitions.append(
            {
                "backend": lowered.backend_id,
                "aten_ops": ops,
                "payload_bytes": len(lowered.processed_bytes),
                **info,
                "inputs_from": inputs_from,
            }
        )
    return partitions


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


_TORCH_DIRECTORY = os.path.dirname(torch.__file__) + os.sep


def _source_of(node: torch.fx.Node | None) -> str | None:
    """The innermost frame of the user's code that produced ``node`` (file:line in function):
    torch's own frames (an nn.Conv2d's forward) are passed over to the line that called them."""
    trace = (node.meta.get("stack_trace") or "") if node is not None else ""
    frames = _FRAME.findall(trace)
    if not frames:
        return None
    users = [frame for frame in frames if not frame[0].startswith(_TORCH_DIRECTORY)]
    path, line, function = (users or frames)[-1]
    return f"{path}:{line} in {function}"


def _debug_map(edge_program) -> list[dict]:
    """Per partition, every TOSA operator with the ATen node it came from and the source line;
    for Ethos-U partitions also every NPU operation of the command stream, traced the same way."""
    partitions = []
    for index, (_name, lowered, _call) in enumerate(get_lowered_submodules(edge_program.graph_module)):
        info = lowered.meta.get("_delegate_info_meta") or {}
        nodes = {n.name: n for n in lowered.original_module.graph.nodes}
        operators = []
        for position, (tosa_op, origin) in enumerate(zip(info.get("tosa_ops", []), info.get("tosa_op_origins", []))):
            node = nodes.get(origin)
            operators.append(
                {
                    "index": position,
                    "tosa_op": tosa_op,
                    "node": origin,
                    "aten_op": op_name(node.target) if node is not None and node.op == "call_function" else None,
                    "source": _source_of(node),
                }
            )
        entry = {"partition": index, "backend": lowered.backend_id, "operators": operators}
        if "npu_operations" in info:
            entry["npu_operations"] = [_with_origin(op, operators) for op in info["npu_operations"]]
        partitions.append(entry)
    return partitions


def _with_origin(npu_operation: dict, operators: list[dict]) -> dict:
    """An NPU operation (Vela's debug database) with the TOSA operator, ATen node and source
    line it comes from."""
    index = npu_operation["tosa_op_index"]
    origin = operators[index] if index is not None and index < len(operators) else {}
    return {**npu_operation, **{key: origin.get(key) for key in ("tosa_op", "node", "aten_op", "source")}}


def _outputs_from(edge_program) -> list:
    """Per program output: [partition index, partition output index], or None (CPU op, input).

    A boundary dequantize on CPU (INT partitions) is looked through: the value is the partition's.
    """
    calls = [call for _name, _lowered, call in get_lowered_submodules(edge_program.graph_module)]
    sources = []
    for value in edge_program.graph.output_node().args[0]:
        while isinstance(value, torch.fx.Node) and "dequantize" in op_name(value.target):
            value = value.args[0]
        source = None
        if isinstance(value, torch.fx.Node) and value.target is operator.getitem and value.args[0] in calls:
            source = [calls.index(value.args[0]), value.args[1]]
        elif isinstance(value, torch.fx.Node) and value in calls:
            source = [calls.index(value), 0]
        sources.append(source)
    return sources


def _cpu_ops(edge_program, rejections: dict[str, tuple[str, str]], delegate: bool) -> list[dict]:
    left = []
    for node in edge_program.graph.nodes:
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        name = op_name(node.target)
        if name == "executorch_call_delegate":
            continue
        if not delegate:
            reason = "delegation disabled (--no-delegate)"
        elif node.name in rejections:
            reason = rejections[node.name][1]
        else:
            reason = "not placed in a partition"
        left.append({"node": node.name, "op": name, "reason": reason})
    return left


# Namespaces of the ops ExecuTorch's portable kernels run.
_PORTABLE_NAMESPACES = ("aten", "quantized_decomposed", "dim_order_ops")


def _run_cpu_part_passes(pipeline, edge_program, cpu_ops: list[dict]) -> None:
    """Runs the pipeline's passes on the program's CPU part; each CPU op they absorbed into an
    op of another kernel library (e.g. ``cortex_m``) gets that library as its ``kernel``, the
    others ``portable``."""
    before = {node.name for node in edge_program.graph.nodes}
    pipeline.run_program(Stage.CPU, edge_program)
    after = {node.name: node for node in edge_program.graph.nodes}
    new_ops = [op_name(n.target) for name, n in after.items() if name not in before and n.op == "call_function"]
    libraries = sorted({op.split(".")[0] for op in new_ops} - set(_PORTABLE_NAMESPACES))
    for entry in cpu_ops:
        absorbed = entry["node"] not in after and libraries
        entry["kernel"] = ", ".join(libraries) if absorbed else "portable"


def check_quantize_option(target: str, spec: TosaSpecification | None, quantize: bool) -> None:
    """INT-only targets lower integer tensors: their models must be quantized (-q)."""
    if quantize and (spec is None or not spec.supports_int()):
        raise EtarmError(f"quantization (-q) needs an integer target such as TOSA-1.0+INT; '{target}' has no INT profile")
    if not quantize and spec is not None and spec.supports_int() and not spec.supports_fp():
        raise EtarmError(f"target '{target}' runs integer models only: add -q (quantize=True) to quantize the model")


@shared_node_provenance()
def compile_model(
    model: torch.nn.Module,
    example_inputs: tuple,
    target: str,
    *,
    quantize: bool = False,
    delegate: bool = True,
    intermediates_dir: str | None = None,
    calibration_data=None,
    quantizer=None,
    target_options: dict | None = None,
    strict_export: bool = False,
    etrecord: bool = False,
    bundleio: bool = False,
    additional_checks: list | None = None,
) -> CompileResult:
    """Compiles ``model`` for ``target``; the report follows the contract in DESIGN.md.

    ``quantize``: PT2E-quantize for the target first (required by INT-only targets),
    calibrating with ``calibration_data`` (a .pt file or folder of .pt files, each a
    tuple of inputs, or an iterable of input tuples; default: the example inputs) and
    ``quantizer`` (a PT2E Quantizer; default: the target family's, etarm/<family>/target.py).
    ``target_options``: the target family's settings by name (e.g. Ethos-U's
    ``system_config``, ``memory_mode``, ``exact_composites``; see ``etarm compile --help``).
    ``strict_export``: torch.export's strict mode (TorchDynamo tracing); etarm's default is
    torch's non-strict tracing. ``etrecord``: also build an ETRecord (``result.etrecord``, the
    bytes executorch.devtools' Inspector reads) from the edge and ExecuTorch programs.
    ``bundleio``: also build a BundledProgram (``result.bpte``) holding the program, the example
    inputs, the outputs the program should compute (the float model's; for ``quantize``, the
    quantized model's) and the tolerance; the report's ``bundle`` describes it.
    ``additional_checks``: the partitioner's extra rules (``EthosUPartitioner(spec,
    additional_checks)``), each ``(node, tosa_spec) -> reason or None``; a reason keeps the node
    on the CPU (for Ethos-U, a quantized one then runs as a cortex_m kernel where one exists).
    """
    timer = _Timer()
    model, example_inputs = _private_copies(model, example_inputs)
    partitioner = make_partitioner(target, intermediates_dir, target_options, quantize, additional_checks)
    compile_spec = partitioner.compile_spec
    pipeline = compile_spec.pipeline()
    tosa_spec = getattr(compile_spec, "tosa_spec", None)
    check_quantize_option(target, tosa_spec, quantize)
    with timer.stage("export"):
        exported = _export(model.eval(), example_inputs, strict_export)
    quantized_model = None
    if quantize:
        with timer.stage("quantize"):
            batches = calibration_batches(calibration_data, example_inputs)
            quantizer = quantizer or default_quantizer(target, compile_spec, target_options)
            quantized_model = quantize_program(exported, quantizer, batches)
        with timer.stage("export_quantized"):
            exported = _export(quantized_model, example_inputs, strict_export)
    with timer.stage("lower"), reuse_composite_op_scan(), lighter_composite_overrides(), skip_idle_edge_passes():
        edge = lower_to_edge(
            pipeline.run_program(Stage.EXPORTED, exported),
            transform_passes=(pipeline.stage(Stage.EDGE) or None) if delegate else None,
            partitioners=[partitioner] if delegate else [],
            config=EdgeCompileConfig(_check_ir_validity=False),
        )
    edge_program = edge.exported_program()
    # Read before to_executorch, which rewrites the graph in place (out variants, allocs).
    partitions = _partitions(edge_program)
    debug_map = _debug_map(edge_program)
    outputs_from = _outputs_from(edge_program)
    cpu_ops = _cpu_ops(edge_program, partitioner.rejections, delegate)
    if delegate and pipeline.stage(Stage.CPU):
        with timer.stage("cpu_kernels"):
            _run_cpu_part_passes(pipeline, edge_program, cpu_ops)
    # to_executorch rewrites the edge program in place; the ETRecord needs it as it was.
    edge_for_etrecord = copy.deepcopy(edge) if etrecord else None
    with timer.stage("to_executorch"), skip_idle_edge_passes(), delegate_outputs_from_metadata():
        executorch_program = edge.to_executorch(ExecutorchBackendConfig(extract_delegate_segments=True))
        pte = executorch_program.buffer
    etrecord_bytes = _etrecord(edge_for_etrecord, executorch_program, exported) if etrecord else None
    bpte, bundle = None, None
    if bundleio:
        with timer.stage("bundle"):
            reference = quantized_model if quantize else model
            bpte, bundle = build_bpte(executorch_program, reference, example_inputs, quantized=quantize)
    report = {
        "target": target,
        "quantized": quantize,
        "delegated": delegate,
        "inputs": [_input_entry(value) for value in example_inputs],
        "partitions": partitions,
        "outputs_from": outputs_from,
        "cpu_ops": cpu_ops,
        "pte_bytes": len(pte),
        "timings_s": timer.stages,
    }
    if bundle is not None:
        report["bundle"] = bundle
    return CompileResult(
        pte=pte,
        report=report,
        quantized_model=quantized_model,
        etrecord=etrecord_bytes,
        debug_map=debug_map,
        bpte=bpte,
    )


def _etrecord(edge, executorch_program, exported) -> bytes:
    # Imported on use: executorch.devtools adds ~1.8 s to every compile's start-up.
    from executorch.devtools.etrecord import generate_etrecord

    buffer = io.BytesIO()
    generate_etrecord(buffer, edge, executorch_program, exported_program=exported)
    return buffer.getvalue()


def _private_copies(model: torch.nn.Module, example_inputs: tuple) -> tuple[torch.nn.Module, tuple]:
    """What compile_model works on: export, calibration and bundling run the model, which may
    change its buffers or its inputs in place, and eval() flips its mode; none of that may
    reach the caller's module or tensors."""
    try:
        return copy.deepcopy(model), copy.deepcopy(example_inputs)
    except Exception as exc:
        raise EtarmError(
            f"the model or its inputs cannot be copied ({type(exc).__name__}: {exc}): etarm compiles a copy, "
            "so that compiling never changes them"
        ) from exc


@shared_node_provenance()
def quantize_model(
    model: torch.nn.Module, example_inputs: tuple, quantizer, calibration_data=None, strict_export: bool = False
) -> torch.fx.GraphModule:
    """The PT2E-quantized (convert_pt2e) model compile_model(quantize=True) lowers, for the
    same quantizer and calibration data: what a quantized program should compute."""
    model, example_inputs = _private_copies(model, example_inputs)
    exported = _export(model.eval(), example_inputs, strict_export)
    return quantize_program(exported, quantizer, calibration_batches(calibration_data, example_inputs))


def _export(model: torch.nn.Module, example_inputs: tuple, strict: bool):
    try:
        return torch.export.export(model, example_inputs, strict=strict)
    except Exception as exc:
        raise EtarmError(f"torch.export failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from exc
