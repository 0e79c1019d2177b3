"""The debug map's NPU operations (Vela's debug database): every operation of the command
stream traced to the TOSA operator, ATen node and source line it implements."""

import pathlib

import pytest
import torch

from etarm.compiler import compile_model

# Vela's operator names for the TOSA operators these models lower to.
VELA_NAMES = {"CONV2D": "Conv2D", "DEPTHWISE_CONV2D": "DepthwiseConv2D", "ADD": "Add", "MAX_POOL2D": "MaxPool"}


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, 3, padding=1)
        self.depthwise = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pool = torch.nn.MaxPool2d(2)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.pool(y + self.depthwise(y))


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
def test_every_npu_operation_is_traced_to_the_users_source(target):
    torch.manual_seed(0)
    result = compile_model(Net().eval(), (torch.randn(1, 4, 8, 8),), target, quantize=True)
    (partition,) = result.debug_map
    operations = partition["npu_operations"]
    assert operations
    # Scheduled order is command-stream order; an operation chained into the one before
    # (Ethos-U85) has no commands of its own.
    offsets = [op["command_offset"] for op in operations if op["command_offset"] is not None]
    assert offsets == sorted(set(offsets)) and operations[0]["command_offset"] is not None
    here = pathlib.Path(__file__).name
    for op in operations:
        assert op["tosa_op"] == partition["operators"][op["tosa_op_index"]]["tosa_op"]
        assert op["aten_op"].startswith(("aten.", "quantized_decomposed.")), op
        assert here in op["source"], op
        assert op["cycles"] >= 0
    traced = {op["tosa_op"]: op["operator"] for op in operations if op["tosa_op"] in VELA_NAMES}
    assert traced == {name: VELA_NAMES[name] for name in ("CONV2D", "DEPTHWISE_CONV2D", "ADD", "MAX_POOL2D")}
    convolution = next(op for op in operations if op["tosa_op"] == "CONV2D")
    assert convolution["aten_op"] == "aten.convolution.default"
    assert convolution["macs"] == 8 * 8 * 8 * 4 * 3 * 3


def test_float_partitions_have_no_npu_operations():
    result = compile_model(Net().eval(), (torch.randn(1, 4, 8, 8),), "TOSA-1.0+FP")
    assert "npu_operations" not in result.debug_map[0]
    assert "npu_operations" not in result.report["partitions"][0]
