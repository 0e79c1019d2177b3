"""etarm's command line: ``etarm compile -m MODEL -t TARGET -o OUT.pte [...]``, ``etarm run OUT.pte``,
``etarm kernels OUT.pte [--registration OUT.cc]``.

The flags follow the ExecuTorch Arm backend's aot_arm_compiler so existing
scripts port by changing the program name.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
import traceback

from etarm import progress
from etarm.errors import EtarmError
from etarm.working_directory import user_working_directory

# Start-up (importing torch and executorch) is part of what a user waits for: time from here.
_PROCESS_START = time.perf_counter()
# Run as the program (//:etarm, python -m etarm.cli), not imported (tests call main()).
_STANDALONE = __name__ == "__main__"


def _pause_gc_while_importing() -> None:
    """Importing torch and executorch creates millions of objects that live as long as the
    process; the cyclic collector would walk them again and again (~20% of start-up)."""
    if _STANDALONE:
        gc.disable()


def _resume_gc() -> None:
    """Collects again, leaving the imported objects out of every later collection."""
    if _STANDALONE:
        gc.freeze()
        gc.enable()


def _compile_parser(sub, targets) -> argparse.ArgumentParser:
    p = sub.add_parser("compile", help="compile a PyTorch model to a .pte")
    p.add_argument("-m", "--model_name", required=True, help="built-in model name or a .py model file")
    p.add_argument("--model_input", help="example inputs: a .pt/.pth file, or the name of a variable in the model file")
    p.add_argument(
        "-t", "--target", default="TOSA-1.0+FP", help="e.g. TOSA-1.0+FP, TOSA-1.0+INT, ethos-u55-128, ethos-u85-256"
    )
    p.add_argument("-q", "--quantize", action="store_true", help="quantize with PT2E before lowering")
    p.add_argument("-d", "--delegate", action="store_true", default=True, help="delegate to the target (default)")
    p.add_argument("--no-delegate", dest="delegate", action="store_false", help="keep every op on CPU")
    p.add_argument("-i", "--intermediates", help="directory for .tosa and backend compiler outputs")
    p.add_argument(
        "-o",
        "--output",
        default=".",
        help="output .pte (.bpte with --bundleio) file, or a directory for <model>_<target>.pte (.bpte)",
    )
    p.add_argument("--report", help="write the JSON compile report here")
    for _family, option in targets.all_options():
        if option.switch:
            p.add_argument(option.flag, action="store_true", help=option.help)
        else:
            p.add_argument(option.flag, help=option.help)
    p.add_argument(
        "--calibration_data",
        help=".pt file or folder of them used to calibrate quantization, or random[:N] (N inputs drawn like the example inputs, default 32)",
    )
    p.add_argument("-s", "--so_library", help="shared library with custom ops to load before export")
    p.add_argument("--etrecord", action="store_true", help="also write <output>_etrecord.bin for executorch.devtools")
    p.add_argument(
        "--bundleio",
        action="store_true",
        help="write a .bpte (ExecuTorch BundledProgram): the program, the example inputs, the outputs it should "
        "compute and the tolerance, which etarm's runner checks",
    )
    p.add_argument(
        "--non_strict_export",
        dest="strict_export",
        action="store_false",
        default=False,
        help="torch.export without TorchDynamo (etarm's default)",
    )
    p.add_argument("--strict_export", action="store_true", help="torch.export with TorchDynamo (strict mode)")
    p.add_argument(
        "--enable_debug_mode",
        choices=("json", "tosa"),
        help="write <output>_debug.json: every TOSA operator's ATen node and source line; "
        "tosa: also each partition's .tosa in <output>_tosa/",
    )
    p.add_argument("--enable_qdq_fusion_pass", action="store_true", help="accepted and ignored (deprecated upstream)")
    p.add_argument(
        _EXPLICIT_LAYOUT,
        action="store_true",
        help="Cortex-M targets: accepted; etarm always gives NHWC kernels explicit permutes (cancelled between them)",
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


# The peer's Cortex-M layout switch: etarm's Cortex-M pipeline always lays NHWC kernels out with
# explicit permutes (folded away between kernels), so it is accepted for those targets.
_EXPLICIT_LAYOUT = "--cortex-m-explicit-layout"


def _run_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("run", help="run a .pte on this host (and compare it with its torch model), or check a .bpte")
    p.add_argument(
        "pte", help="the .pte to run, or a .bpte (--bundleio) whose test cases are run and checked against its outputs"
    )
    p.add_argument(
        "--inputs",
        nargs="+",
        metavar="FILE",
        help="the inputs, in order: .npy files, or .pt files each holding a tensor or a tuple of them "
        "(default: the model's example inputs with --model, else ones)",
    )
    p.add_argument(
        "--model",
        help="the model the .pte was compiled from (built-in name or .py file): its outputs, and for a "
        "quantized program the quantized model's, are compared with the program's",
    )
    p.add_argument(
        "--model_input", help="as for compile: a .pt file of example inputs, or a variable of the model file"
    )
    p.add_argument(
        "--calibration_data", help="quantized programs: the calibration data compile used (default: the example inputs)"
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def _passes_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("passes", help="print the passes a model goes through for a target, in order")
    p.add_argument("-t", "--target", required=True, help="e.g. TOSA-1.0+INT, ethos-u55-128")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def _kernels_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "kernels", help="list the kernels a .pte runs on the CPU, or write the C++ that registers only them"
    )
    p.add_argument("program", help="the .pte (or .bpte)")
    p.add_argument(
        "--registration", metavar="OUT.cc", help="write the registration of these kernels (kernels/defs.bzl)"
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def _run_kernels(args) -> int:
    # Like `etarm run`'s module, only for this command (after main's start-up steps).
    from etarm import kernel_registration

    try:
        with open(args.program, "rb") as f:
            pte = f.read()
    except OSError as error:
        raise EtarmError(f"{args.program}: {error.strerror}") from error
    operators = kernel_registration.program_kernels(pte)
    if args.registration:
        source = kernel_registration.registration_source(operators, os.path.basename(args.program))
        with open(args.registration, "w") as f:
            f.write(source)
    else:
        print("\n".join(operators))
    return 0


def _output_path(args) -> str:
    extension = ".bpte" if args.bundleio else ".pte"
    if args.output.endswith((".pte", ".bpte")):
        if not args.output.endswith(extension):
            needs = "--bundleio writes a .bpte" if args.bundleio else "a .bpte needs --bundleio"
            raise EtarmError(f"-o {args.output}: {needs}")
        return args.output
    stem = os.path.splitext(os.path.basename(args.model_name))[0]
    return os.path.join(args.output, f"{stem}_{args.target}{extension}")


def _print_summary(report: dict, path: str, seconds: float, total: float, targets) -> None:
    print(f"target      {report['target']}")
    for i, part in enumerate(report["partitions"]):
        ops = ", ".join(part["aten_ops"])
        print(f"partition {i} {part['backend']}: {ops}")
    for line in targets.family_of(report["target"]).summary_lines(report):
        print(line)
    if report["cpu_ops"]:
        print(f"on CPU      {len(report['cpu_ops'])} op(s)")
        for op in report["cpu_ops"]:
            print(f"  {op['op']} ({op['node']}): {op['reason']}")
    else:
        print("on CPU      none")
    timing = f"in {seconds:.2f} s ({total:.1f} s with start-up)"
    bundle = report.get("bundle")
    if bundle is None:
        print(f"wrote       {path} ({report['pte_bytes']} bytes) {timing}")
        return
    print(
        f"wrote       {path} ({bundle['bpte_bytes']} bytes: the {report['pte_bytes']}-byte program, "
        f"{bundle['test_cases']} test case of {bundle['method']}) {timing}"
    )
    print(
        f"expected    the {bundle['expected_outputs_from']}'s outputs, "
        f"within atol {bundle['atol']:.3g} + rtol {bundle['rtol']:.3g} * |expected|"
    )


def _quiet_third_party() -> None:
    """Silences import-time chatter of torch/torchao/executorch; --debug keeps it."""
    import logging
    import warnings

    import torch  # noqa: F401  (torch sets its loggers' levels on import: override after it)

    warnings.filterwarnings("ignore")
    for name in ("torchao", "torch", "torch.utils._pytree", "executorch"):
        logging.getLogger(name).setLevel(logging.ERROR)


def _run_compile(args, targets) -> int:
    # Imports torch and executorch: kept out of argument parsing so --help is instant.
    from etarm.compiler import compile_model
    from etarm.models import load_model

    start = time.perf_counter()
    if args.cortex_m_explicit_layout and targets.family_of(args.target).name != "Cortex-M":
        raise EtarmError(f"{_EXPLICIT_LAYOUT} applies to Cortex-M targets only, not '{args.target}'")
    options = {option.name: getattr(args, option.name) for _family, option in targets.all_options()}
    targets.checked_options(args.target, options)
    if args.so_library:
        import torch

        if not os.path.isfile(args.so_library):
            raise EtarmError(f"--so_library '{args.so_library}' does not exist")
        torch.ops.load_library(args.so_library)
    model, inputs = load_model(args.model_name, args.model_input)
    _resume_gc()
    path = _output_path(args)
    stem = os.path.splitext(path)[0]
    intermediates = args.intermediates or (f"{stem}_tosa" if args.enable_debug_mode == "tosa" else None)
    with progress.reporting_to(progress.for_stream(sys.stderr)):
        result = compile_model(
            model,
            inputs,
            args.target,
            quantize=args.quantize,
            delegate=args.delegate,
            intermediates_dir=intermediates,
            calibration_data=args.calibration_data,
            target_options=options,
            strict_export=args.strict_export,
            etrecord=args.etrecord,
            bundleio=args.bundleio,
        )
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(result.bpte if args.bundleio else result.pte)
    if result.etrecord is not None:
        with open(f"{stem}_etrecord.bin", "wb") as f:
            f.write(result.etrecord)
    if args.enable_debug_mode:
        with open(f"{stem}_debug.json", "w") as f:
            json.dump({"target": args.target, "partitions": result.debug_map}, f, indent=2)
    seconds = time.perf_counter() - start
    total = time.perf_counter() - _PROCESS_START
    report = {
        **result.report,
        ("bpte_path" if args.bundleio else "pte_path"): os.path.abspath(path),
        "compile_s": round(seconds, 3),
        "total_s_with_startup": round(total, 3),
    }
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=2)
    _print_summary(report, path, seconds, total, targets)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    _pause_gc_while_importing()
    if "--debug" not in argv:
        _quiet_third_party()
    # The registry's families import torch and executorch: after the two calls above, and
    # after the stand-in for inductor's pass is bound (lazy_inductor_pass.py).
    from etarm import lazy_inductor_pass

    lazy_inductor_pass.install()
    from etarm import targets

    parser = argparse.ArgumentParser(prog="etarm", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    _compile_parser(sub, targets)
    _passes_parser(sub)
    _run_parser(sub)
    _kernels_parser(sub)
    args = parser.parse_args(argv)
    # Outputs are relative to where the user ran the command, not to Bazel's runfiles.
    os.chdir(user_working_directory())
    try:
        if args.command == "passes":
            print("\n".join(targets.compile_spec_for(args.target).pipeline().describe()))
            return 0
        if args.command == "kernels":
            return _run_kernels(args)
        if args.command == "run":
            # Loads the runtime extension and ExecuTorch's libraries: only for `etarm run`.
            from etarm import run_command

            return run_command.run(args)
        return _run_compile(args, targets)
    except EtarmError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"etarm: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # an etarm bug: still one line unless --debug
        if args.debug:
            traceback.print_exc()
        print(
            f"etarm: internal error: {type(exc).__name__}: {exc} (rerun with --debug for a traceback)", file=sys.stderr
        )
        return 3


def _exit_without_teardown(code: int) -> None:
    """Ends the process as soon as the output is out: Python's teardown of the ~3000 modules
    torch and executorch import takes seconds (as long as the compile itself) and does
    nothing a compile needs; every file etarm writes is closed by then."""
    import logging

    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def console_main() -> None:
    """The `etarm` command of the wheel (python/BUILD.bazel)."""
    _exit_without_teardown(main())


if __name__ == "__main__":
    console_main()
