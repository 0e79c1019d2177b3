"""With int16 activations, what Ethos-U55 cannot run stays on the CPU with its reason: the
partitioner's rules know what the backend's TOSA checks would refuse, so no compile fails
after partitioning (softmax's int32->int16 CAST, int16 matrix products behind views, int16
functions an interpolated table cannot follow, attention kept whole). And what runs on the
NPU at int16 computes on etarm's NPU model exactly what its TOSA graph computes on the TOSA
reference model (the op-coverage matrix's int16 column on ethos-u55-128 and ethos-u85-256)."""

import tempfile
import zlib

import pytest
import torch

from etarm.compiler import compile_model
from etarm.ethosu import EthosUCompileSpec
from etarm.quantizer import EthosUQuantizer, get_symmetric_a16w8_quantization_config
from etarm.testing.cpu_fallback import Fn
from etarm.testing.npu_model_reference import partition_differences
from etarm.testing.op_samples import SAMPLES

TARGETS = ["ethos-u55-128", "ethos-u85-256"]


def int16_compile(module, inputs, target, intermediates_dir=None):
    quantizer = EthosUQuantizer(EthosUCompileSpec(target)).set_global(get_symmetric_a16w8_quantization_config())
    return compile_model(module, inputs, target, quantize=True, quantizer=quantizer, intermediates_dir=intermediates_dir)


def cpu_reasons(result, op):
    return [c["reason"] for c in result.report["cpu_ops"] if c["op"] == op]


CASES = {
    "softmax": (lambda x: torch.softmax(x, -1), ((2, 8),), "aten._softmax.default", "on int16 values"),
    "log_softmax": (lambda x: torch.log_softmax(x, -1), ((2, 8),), "aten._log_softmax.default", "on int16 values"),
    "matmul": (lambda a, b: a @ b, ((2, 4, 8), (2, 8, 3)), "aten.bmm.default", "int16 operands"),
    "rsqrt": (torch.rsqrt, ((2, 8),), "aten.rsqrt.default", "needs an exact 65536-entry lookup"),
    "amin": (lambda x: torch.amin(x, -1), ((2, 8),), "aten.amin.default", "drops the reduced axis"),
    "attention": (
        lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v),
        ((1, 2, 4, 8), (1, 2, 6, 8), (1, 2, 6, 8)),
        "aten.bmm.default",  # not kept whole on U55: its products stay on the CPU
        "int16 operands",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_u55_keeps_what_it_cannot_run_on_the_cpu(name):
    fn, shapes, op, reason = CASES[name]
    torch.manual_seed(0)
    inputs = tuple(torch.rand(shape) + 0.1 for shape in shapes)
    result = int16_compile(Fn(fn), inputs, "ethos-u55-128")
    assert any(reason in r for r in cpu_reasons(result, op)), result.report["cpu_ops"]
    assert not cpu_reasons(int16_compile(Fn(fn), inputs, "ethos-u85-256"), op)  # U85 runs it


def distinct_samples():
    seen, samples = set(), []
    for op, sample in SAMPLES.items():
        if id(sample) not in seen:
            seen.add(id(sample))
            samples.append(pytest.param(sample, id=op))
    return samples


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("sample", distinct_samples())
def test_every_op_sample_runs_bit_exactly_with_int16_activations(sample, target):
    # CPU fallback is fine, a failed compile is not; every NPU partition is bit-exact on the
    # NPU model over random and extreme (all minimum, maximum, zero) inputs.
    with tempfile.TemporaryDirectory() as intermediates:
        partitions = int16_compile(sample.module(), sample.inputs(), target, intermediates).report["partitions"]
        differences = {
            index: partition_differences(partition, target, zlib.crc32(f"{sample.name}/{target}/{index}".encode()))
            for index, partition in enumerate(partitions)
        }
    assert {index: lines for index, lines in differences.items() if lines} == {}


def test_u55_rejected_int16_softmax_runs_as_a_cortex_m_kernel():
    fn, shapes, op, _ = CASES["softmax"]
    torch.manual_seed(0)
    result = int16_compile(Fn(fn), tuple(torch.rand(shape) + 0.1 for shape in shapes), "ethos-u55-128")
    assert [c["kernel"] for c in result.report["cpu_ops"] if c["op"] == op] == ["cortex_m"]
    assert b"cortex_m::quantized_softmax_int16" in result.pte
