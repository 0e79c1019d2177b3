"""Single-operator models for the NPU model's reference tests: each exercises one kind of
NPU operation (or one variant of its addressing, weight layout or scaling) on its own."""

from __future__ import annotations

import torch


class Binary(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, y):
        return self.fn(x, y)


class Unary(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _r(*shape):
    return torch.randn(*shape)


def _ternary(conv):
    """`conv` with weights of three values, -0.05, 0 and 0.05 (drawn after every other model's)."""
    with torch.no_grad():
        conv.weight.copy_(torch.randint(-1, 2, conv.weight.shape).float() * 0.05)
    return conv


def _models():
    torch.manual_seed(7)
    return {
        # Convolutions: part-kernel-first (few IFM channels), depth-first (many), strides,
        # dilation, kernels cut into sub-kernels, more than one IFM block.
        "conv2d": (torch.nn.Conv2d(5, 7, 3, padding=1), (_r(1, 5, 9, 9),)),
        "conv2d_stride2": (torch.nn.Conv2d(8, 16, 3, stride=2, padding=1), (_r(1, 8, 12, 12),)),
        "conv2d_dilated": (torch.nn.Conv2d(4, 8, 3, dilation=2, padding=2), (_r(1, 4, 10, 10),)),
        "conv2d_deep": (torch.nn.Conv2d(40, 24, 1), (_r(1, 40, 6, 6),)),
        "conv2d_deep3x3": (torch.nn.Conv2d(70, 20, 3, padding=1), (_r(1, 70, 5, 5),)),
        "conv2d_big_kernel": (torch.nn.Conv2d(3, 8, (9, 10)), (_r(1, 3, 12, 12),)),
        "depthwise": (torch.nn.Conv2d(8, 8, 3, padding=1, groups=8), (_r(1, 8, 9, 9),)),
        "depthwise_stride2": (torch.nn.Conv2d(24, 24, 5, stride=2, padding=2, groups=24), (_r(1, 24, 11, 11),)),
        "linear": (torch.nn.Linear(20, 7), (_r(3, 20),)),
        "linear_big": (torch.nn.Linear(100, 50), (_r(1, 100),)),
        # Both operands computed: Ethos-U85's matmul (CONV with weights from IFM2).
        "bmm": (Binary(torch.bmm), (_r(2, 4, 8), _r(2, 8, 6))),
        # Elementwise.
        "add": (Binary(torch.add), (_r(1, 8, 5, 5), _r(1, 8, 5, 5))),
        "add_broadcast": (Binary(torch.add), (_r(1, 8, 4, 4), _r(1, 8, 1, 1))),
        "sub": (Binary(torch.sub), (_r(1, 8, 5, 5), 2 * _r(1, 8, 5, 5))),
        "mul": (Binary(torch.mul), (_r(1, 8, 5, 5), _r(1, 8, 5, 5))),
        "mul_broadcast": (Binary(torch.mul), (_r(2, 6, 3), _r(1, 6, 1))),
        "minimum": (Binary(torch.minimum), (_r(1, 8, 4, 4), _r(1, 8, 4, 4))),
        # Ethos-U85: an INTDIV (ELEMENTWISE DIV) of the dividend's steps by the divisor's.
        "div": (Binary(torch.div), (_r(1, 8, 4, 4), _r(1, 8, 4, 4).abs() + 0.5)),
        "maximum": (Binary(torch.maximum), (_r(1, 8, 4, 4), _r(1, 8, 4, 4))),
        # Pooling.
        "maxpool": (torch.nn.MaxPool2d(3, 2, 1), (_r(1, 8, 9, 9),)),
        "avgpool": (torch.nn.AvgPool2d(2, 2), (_r(1, 8, 8, 8),)),
        "avgpool_padded": (torch.nn.AvgPool2d(3, 1, 1, count_include_pad=False), (_r(1, 8, 6, 6),)),
        "mean": (Unary(lambda x: x.mean(dim=(2, 3), keepdim=True)), (_r(1, 16, 5, 5),)),
        # Activations.
        "relu": (torch.nn.ReLU(), (_r(1, 8, 4, 4),)),
        "hardtanh": (torch.nn.Hardtanh(-0.5, 0.7), (_r(1, 8, 4, 4),)),
        "sigmoid": (torch.nn.Sigmoid(), (_r(1, 8, 4, 4),)),
        "tanh": (torch.nn.Tanh(), (_r(1, 8, 4, 4),)),
        "leaky_relu": (torch.nn.LeakyReLU(0.1), (_r(1, 8, 4, 4),)),
        "silu": (torch.nn.SiLU(), (_r(1, 8, 4, 4),)),
        "gelu": (torch.nn.GELU(), (_r(1, 8, 4, 4),)),
        "abs": (Unary(torch.abs), (_r(1, 8, 4, 4),)),
        "softmax": (torch.nn.Softmax(dim=-1), (_r(1, 4, 16),)),
        "layer_norm": (torch.nn.LayerNorm(16), (_r(1, 4, 16),)),
        # Transposed convolution (zero-inserting upscale) and nearest-neighbour resize.
        "conv_transpose": (torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1), (_r(1, 4, 5, 5),)),
        "upsample_nearest": (torch.nn.Upsample(scale_factor=2, mode="nearest"), (_r(1, 8, 4, 4),)),
        # Ethos-U85 runs both as NPU_OP_RESIZE.
        "upsample_bilinear": (torch.nn.Upsample(scale_factor=2, mode="bilinear"), (_r(1, 8, 4, 4),)),
        # Data movement.
        "concat": (Binary(lambda x, y: torch.cat([x, y], dim=1)), (_r(1, 3, 4, 4), _r(1, 5, 4, 4))),
        "permute": (Unary(lambda x: x.permute(0, 2, 3, 1) * 1.0), (_r(1, 6, 4, 5),)),
        "pad": (torch.nn.ConstantPad2d((1, 2, 0, 1), 0.5), (_r(1, 3, 4, 4),)),
        "slice": (Unary(lambda x: x[:, 1:5, ::2, 1:] * 1.0), (_r(1, 6, 6, 6),)),
        "flip": (Unary(lambda x: torch.flip(x, [2]) * 1.0), (_r(1, 6, 5, 4),)),
        # Ethos-U85's indexed DMAs: a gather and a scatter (TOSA GATHER / SCATTER).
        "index_select": (Unary(lambda x: torch.index_select(x, 1, torch.tensor([3, 0, 2, 2, 5]))), (_r(2, 6, 8),)),
        "index_put": (
            Binary(lambda x, v: torch.ops.aten.index_put.default(x, [torch.tensor([4, 0, 2])], v, False)),
            (_r(6, 8), _r(3, 8)),
        ),
        # Few distinct weights: Vela 5.2.0 picks Ethos-U85's fast weight format (on U85-512 one
        # stream interleaving both weight decoders' weights).
        "conv2d_ternary": (_ternary(torch.nn.Conv2d(256, 256, 1)), (_r(1, 256, 2, 2),)),
    }


# etarm's op samples (python/etarm/testing/op_samples.py) as models: "sample_<name>" is the
# sample <name> whole (each of its operators an output), "op_<op>" the sample function of aten
# operator <op> alone (op_avg_pool2d: aten.avg_pool2d.default), on the sample's inputs.
SAMPLE_PREFIX = "sample_"
OP_PREFIX = "op_"


def _sample_model(name: str):
    from etarm.testing.op_samples import SAMPLES

    for sample in SAMPLES.values():
        if sample.name == name:
            return sample.module(), sample.inputs()
    return None


def _sample_op_model(op_name: str):
    from etarm.testing.op_samples import SAMPLES

    for overload in ("default", "Tensor"):
        op = f"aten.{op_name}.{overload}"
        if op in SAMPLES:
            sample = SAMPLES[op]
            return sample.module_of([op]), sample.inputs()
    return None


def op_model(name: str):
    """(module, example inputs) of the single-operator model `name`, or None."""
    if name.startswith(SAMPLE_PREFIX):
        return _sample_model(name[len(SAMPLE_PREFIX) :])
    if name.startswith(OP_PREFIX):
        return _sample_op_model(name[len(OP_PREFIX) :])
    models = _models()
    if name not in models:
        return None
    module, inputs = models[name]
    return module.eval(), inputs


def op_model_names() -> list[str]:
    return sorted(_models())
