"""VgfBackend end to end in-process: the payload is the .vgf, -i keeps the .tosa and .vgf, the
.vgf's inputs and outputs are checked against the partition, and converter failures are one line
with the command that reproduces them."""

import dataclasses
import os
import shlex
import subprocess

import pytest
import torch

import etarm.vgf.backend
from etarm.compiler import compile_model
from etarm.errors import EtarmError
from etarm.pte import delegate_payloads
from etarm.vgf.model_converter import converter_path
from etarm.vgf.vgf_file import io_mismatches, read_vgf


class _Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x, ids):
        return torch.relu(self.fc(x)), ids * 2


INPUTS = (torch.randn(3, 8), torch.arange(6).reshape(2, 3))
# The float partition's operators: the int64 ids are narrowed to int32 by a cast.
VGF_DTYPE = {"float32": "float32", "int64": "int32"}  # TOSA 1.0 has no int64
OPS = "aten.linear.default, aten.mul.Tensor, aten.relu.default, dim_order_ops._to_dim_order_copy.default"


def _compile(tmp_path=None, quantize=False, flags=None):
    options = {"converter_flags": flags} if flags else None
    return compile_model(
        _Net(), INPUTS, "vgf", quantize=quantize, intermediates_dir=str(tmp_path) if tmp_path else None,
        target_options=options,
    )  # fmt: skip


@pytest.mark.parametrize("quantize", [False, True])
def test_payload_is_the_vgf_file_kept_with_its_tosa(tmp_path, quantize):
    result = _compile(tmp_path, quantize)
    (payload,) = delegate_payloads(result.pte)
    assert payload.backend_id == "VgfBackend" and payload.data[:4] == b"VGF1"
    assert sorted(os.listdir(tmp_path)) == ["partition_0.tosa", "partition_0.vgf"]
    assert (tmp_path / "partition_0.vgf").read_bytes() == payload.data
    (partition,) = result.report["partitions"]
    vgf = partition["vgf"]
    assert vgf["vgf_bytes"] == len(payload.data) and 0 < vgf["converter_seconds"] < 10
    assert vgf["converter_version"] == "0.11.0" and vgf["converter_flags"] == []
    assert vgf["segments"] == [{"name": "graph_segment_0", "type": "graph", "module": 0}]
    assert (partition["tosa_file"], partition["vgf_file"]) == (
        str(tmp_path / "partition_0.tosa"),
        str(tmp_path / "partition_0.vgf"),
    )


def test_the_vgf_reads_back_as_the_partition(tmp_path):
    result = _compile(tmp_path, quantize=True)
    (partition,) = result.report["partitions"]
    contents = read_vgf((tmp_path / "partition_0.vgf").read_bytes())
    assert sorted((t.dtype, t.shape) for t in contents.inputs) == [("int32", (2, 3)), ("int8", (3, 8))]
    assert sorted((t.dtype, t.shape) for t in contents.outputs) == [("int32", (2, 3)), ("int8", (3, 4))]
    assert io_mismatches(contents, partition["inputs"], partition["outputs"]) == []
    # The quantized input with another dtype, the int64 ids with another shape.
    dtypes = [e["dtype"] for e in partition["inputs"]]
    q, ids = dtypes.index("int8"), dtypes.index("int64")
    wrong = list(partition["inputs"])
    wrong[q], wrong[ids] = dict(wrong[q], dtype="int16"), dict(wrong[ids], shape=[3, 2])
    reasons = {
        q: f"input {q} ('{wrong[q]['name']}') is int16 [3, 8] in the partition but int8 [3, 8] in the VGF",
        ids: f"input {ids} ('{wrong[ids]['name']}') is int64 [3, 2] in the partition but int32 [2, 3] in the VGF",
    }
    assert io_mismatches(contents, wrong, partition["outputs"][:1]) == [reasons[i] for i in sorted(reasons)] + [
        "2 outputs in the VGF, 1 in the partition"
    ]


def test_read_vgf_refuses_what_is_not_one():
    with pytest.raises(EtarmError, match="not a VGF file: it starts with b'TOSA'"):
        read_vgf(b"TOSA" + bytes(200))
    vgf = delegate_payloads(_compile().pte)[0].data
    with pytest.raises(EtarmError, match="header is invalid"):
        read_vgf(vgf[:200])


def test_a_vgf_that_does_not_match_the_partition_is_refused(monkeypatch):
    real = etarm.vgf.backend.lower_to_tosa
    claimed = {}

    def lower_claiming_a_wider_input(*args, **kwargs):
        lowering = real(*args, **kwargs)
        claimed.update(lowering.inputs[0], shape=[*lowering.inputs[0]["shape"], 9])
        return dataclasses.replace(lowering, inputs=[dict(claimed), *lowering.inputs[1:]])

    monkeypatch.setattr(etarm.vgf.backend, "lower_to_tosa", lower_claiming_a_wider_input)
    with pytest.raises(EtarmError) as error:
        _compile()
    real_shape = claimed["shape"][:-1]
    assert str(error.value) == (
        f"the VGF of the partition ({OPS}) does not match the partition: input 0 ('{claimed['name']}') is "
        f"{claimed['dtype']} {claimed['shape']} in the partition but {VGF_DTYPE[claimed['dtype']]} {real_shape} in the VGF"
    )


def test_converter_failure_is_one_line_that_reproduces_it(tmp_path):
    with pytest.raises(EtarmError) as error:
        _compile(tmp_path, flags="--no-such-flag")
    message = str(error.value)
    assert "\n" not in message
    reason, command = message.split("; reproduce with: ")
    assert reason == (
        f"model-converter failed on partition_0 ({OPS}): "
        "exit status 255: Unknown argument: --no-such-flag; Error creating parser"
    )
    argv = shlex.split(command)
    assert argv == [
        converter_path(),
        "--no-such-flag",
        "--input",
        str(tmp_path / "partition_0.tosa"),
        "--output",
        str(tmp_path / "partition_0.vgf"),
    ]
    assert (tmp_path / "partition_0.tosa").is_file()
    assert subprocess.run(argv, capture_output=True).returncode == 255
    # Without the flag, the same command converts the kept .tosa.
    assert subprocess.run([argv[0], *argv[2:]], capture_output=True).returncode == 0


def test_without_intermediates_a_failure_keeps_the_tosa_in_a_temporary_directory(monkeypatch):
    monkeypatch.setattr(etarm.vgf.backend, "lower_to_tosa", _truncated_lowering(etarm.vgf.backend.lower_to_tosa))
    with pytest.raises(EtarmError, match=r"^model-converter failed on the partition \(aten\.linear") as error:
        _compile()
    command = shlex.split(str(error.value).split("; reproduce with: ")[1])
    tosa = command[command.index("--input") + 1]
    assert os.path.basename(os.path.dirname(tosa)).startswith("etarm_vgf_") and os.path.isfile(tosa)
    assert "Fail to load TOSA file" in subprocess.run(command, capture_output=True, text=True).stderr


def _truncated_lowering(real):
    def lower(*args, **kwargs):
        lowering = real(*args, **kwargs)
        return dataclasses.replace(lowering, flatbuffer=lowering.flatbuffer[:100])

    return lower
