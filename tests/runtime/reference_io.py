"""Writes a model's example inputs and torch's outputs as raw little-endian arrays.

usage: reference_io.py MODEL INPUTS.bin OUTPUTS.bin   (MODEL: a built-in name or a .py file)
Used by C++ runtime tests: inputs.bin holds every input, outputs.bin every output, each
flattened in order, in the tensor's own dtype (the runner's inputs file format).
"""

import sys

import torch

from etarm.models import load_model


def main(model_name: str, inputs_path: str, outputs_path: str) -> None:
    model, inputs = load_model(model_name)
    with torch.no_grad():
        outputs = model(*inputs)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)
    for path, tensors in ((inputs_path, inputs), (outputs_path, outputs)):
        with open(path, "wb") as f:
            for tensor in tensors:
                f.write(tensor.contiguous().numpy().tobytes())


if __name__ == "__main__":
    main(*sys.argv[1:])
