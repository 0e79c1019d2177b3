"""QuantizationConfig: how activations, weights and biases of an op are quantized.

``get_symmetric_quantization_config`` is the int8 default (TOSA INT): activations are
per-tensor affine int8, weights symmetric int8 (per output channel by default), biases
int32 with scale ``input scale * weight scale``. ``get_symmetric_a16w8_quantization_config``
keeps int8 weights but quantizes activations to symmetric int16 (TOSA INT + int16
extension, whose integer ops need zero point 0 on int16 tensors).
"""

from __future__ import annotations

import dataclasses

import torch
from torchao.quantization.pt2e import (
    FakeQuantize,
    FusedMovingAvgObsFakeQuantize,
    HistogramObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    PerChannelMinMaxObserver,
    PlaceholderObserver,
)
from torchao.quantization.pt2e.quantizer import (
    DerivedQuantizationSpec,
    FixedQParamsQuantizationSpec,
    QuantizationSpec,
)

# Smallest scale observers may pick: keeps constant or all-zero tensors representable
# and keeps every rescale within TOSA's 2**-32..2**12 multiplier range.
_MIN_SCALE = 2.0**-16
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


@dataclasses.dataclass(frozen=True)
class QuantizationConfig:
    """Specs for an op's activations in and out, its weight and its bias.

    ``bias`` gives only the integer type and range: the scale is derived per op
    from the input and weight observers (``bias_spec``).
    """

    input_activation: QuantizationSpec | None
    output_activation: QuantizationSpec | None
    weight: QuantizationSpec | None
    bias: QuantizationSpec | None
    is_qat: bool = False

    def weight_spec(self, channel_axis: int | None) -> QuantizationSpec | None:
        """The weight spec with its channel axis (None: per-tensor even if configured per-channel)."""
        weight = self.weight
        if weight is None or weight.qscheme not in (torch.per_channel_symmetric, torch.per_channel_affine):
            return weight
        if channel_axis is None:
            return _weight_spec(False, self.is_qat, weight.quant_min, weight.quant_max)
        return _spec(
            weight.dtype,
            weight.quant_min,
            weight.quant_max,
            weight.qscheme,
            MovingAveragePerChannelMinMaxObserver if self.is_qat else PerChannelMinMaxObserver,
            is_qat=self.is_qat,
            ch_axis=channel_axis,
        )

    def constant_spec(self) -> QuantizationSpec | None:
        """For constant operands (lifted scalars, buffers): activation type, min/max range,
        so a single value is represented exactly rather than through a histogram."""
        act = self.input_activation
        if act is None or act.is_dynamic:
            return act
        observer = MovingAverageMinMaxObserver if self.is_qat else MinMaxObserver
        return _spec(act.dtype, act.quant_min, act.quant_max, act.qscheme, observer, is_qat=self.is_qat)

    def bias_spec(self, node: torch.fx.Node, input_node: torch.fx.Node, weight_node: torch.fx.Node, weight: QuantizationSpec):
        """int32 bias quantized with ``input scale * weight scale`` (per channel if the weight is)."""
        if self.bias is None or self.input_activation is None or weight is None:
            return None
        per_channel = weight.qscheme in (torch.per_channel_symmetric, torch.per_channel_affine)
        return DerivedQuantizationSpec(
            derived_from=[(input_node, node), (weight_node, node)],
            derive_qparams_fn=_bias_qparams,
            dtype=self.bias.dtype,
            quant_min=self.bias.quant_min,
            quant_max=self.bias.quant_max,
            qscheme=torch.per_channel_symmetric if per_channel else torch.per_tensor_symmetric,
            ch_axis=0 if per_channel else None,
        )

    def fixed_output(self, low: float, high: float) -> FixedQParamsQuantizationSpec | None:
        """Output parameters covering exactly [low, high] (sigmoid, tanh, softmax)."""
        act = self.output_activation
        if act is None:
            return None
        qmin, qmax = act.quant_min, act.quant_max
        if act.qscheme in (torch.per_tensor_symmetric, torch.per_channel_symmetric):
            scale = max(abs(low), abs(high)) / qmax
            zero_point = 0
        else:
            scale = (high - low) / (qmax - qmin + 1)
            zero_point = qmin - round(low / scale)
        return FixedQParamsQuantizationSpec(
            dtype=act.dtype,
            scale=scale,
            zero_point=zero_point,
            quant_min=qmin,
            quant_max=qmax,
            qscheme=torch.per_tensor_affine if zero_point else torch.per_tensor_symmetric,
        )


def _bias_qparams(observers) -> tuple[torch.Tensor, torch.Tensor]:
    activation, weight = observers
    activation_scale, _ = activation.calculate_qparams()
    weight_scale, _ = weight.calculate_qparams()
    scale = (activation_scale * weight_scale).to(torch.float32)
    return scale, torch.zeros_like(scale, dtype=torch.int32)


def _spec(dtype, qmin, qmax, qscheme, observer, *, is_qat: bool, ch_axis=None, is_dynamic=False) -> QuantizationSpec:
    kwargs = dict(dtype=dtype, quant_min=qmin, quant_max=qmax, qscheme=qscheme, eps=_MIN_SCALE)
    if ch_axis is not None:
        kwargs["ch_axis"] = ch_axis
    if is_dynamic:
        ctr = PlaceholderObserver.with_args(dtype=dtype, quant_min=qmin, quant_max=qmax, qscheme=qscheme, is_dynamic=True)
    elif is_qat:
        fake_quant = FusedMovingAvgObsFakeQuantize if ch_axis is None else FakeQuantize
        ctr = fake_quant.with_args(observer=observer, **kwargs)
    else:
        ctr = observer.with_args(**kwargs)
    return QuantizationSpec(
        dtype=dtype,
        quant_min=qmin,
        quant_max=qmax,
        qscheme=qscheme,
        ch_axis=ch_axis,
        is_dynamic=is_dynamic,
        observer_or_fake_quant_ctr=ctr,
    )


def _weight_spec(is_per_channel: bool, is_qat: bool, qmin: int, qmax: int) -> QuantizationSpec:
    if is_per_channel:
        observer = MovingAveragePerChannelMinMaxObserver if is_qat else PerChannelMinMaxObserver
        return _spec(torch.int8, qmin, qmax, torch.per_channel_symmetric, observer, is_qat=is_qat, ch_axis=0)
    observer = MovingAverageMinMaxObserver if is_qat else MinMaxObserver
    return _spec(torch.int8, qmin, qmax, torch.per_tensor_symmetric, observer, is_qat=is_qat)


def _bias_type() -> QuantizationSpec:
    # Only dtype and range matter: QuantizationConfig.bias_spec derives the scale.
    return QuantizationSpec(
        dtype=torch.int32,
        quant_min=_INT32_MIN,
        quant_max=_INT32_MAX,
        qscheme=torch.per_tensor_symmetric,
        observer_or_fake_quant_ctr=PlaceholderObserver.with_args(dtype=torch.int32),
    )


def get_symmetric_quantization_config(
    is_per_channel: bool = True,
    is_qat: bool = False,
    is_dynamic: bool = False,
    act_qmin: int = -128,
    act_qmax: int = 127,
    weight_qmin: int = -127,
    weight_qmax: int = 127,
) -> QuantizationConfig:
    """int8 activations (per-tensor affine), symmetric int8 weights, int32 biases."""
    if is_dynamic:
        activation = _spec(
            torch.int8, act_qmin, act_qmax, torch.per_tensor_affine, PlaceholderObserver, is_qat=False, is_dynamic=True
        )
        return QuantizationConfig(activation, None, _weight_spec(is_per_channel, is_qat, weight_qmin, weight_qmax), None)
    observer = MovingAverageMinMaxObserver if is_qat else HistogramObserver
    activation = _spec(torch.int8, act_qmin, act_qmax, torch.per_tensor_affine, observer, is_qat=is_qat)
    weight = _weight_spec(is_per_channel, is_qat, weight_qmin, weight_qmax)
    return QuantizationConfig(activation, activation, weight, _bias_type(), is_qat)


def get_symmetric_a16w8_quantization_config(
    is_per_channel: bool = True,
    is_qat: bool = False,
    weight_qmin: int = -127,
    weight_qmax: int = 127,
) -> QuantizationConfig:
    """Symmetric int16 activations (zero point 0), symmetric int8 weights, int32 biases.

    For TOSA-1.0+INT+int16. Activations use min/max observers: a 16-bit histogram
    search is slow and the extra range makes clipping outliers unnecessary.
    """
    observer = MovingAverageMinMaxObserver if is_qat else MinMaxObserver
    activation = _spec(torch.int16, -32767, 32767, torch.per_tensor_symmetric, observer, is_qat=is_qat)
    weight = _weight_spec(is_per_channel, is_qat, weight_qmin, weight_qmax)
    return QuantizationConfig(activation, activation, weight, _bias_type(), is_qat)


def get_symmetric_a8w4_quantization_config(is_per_channel: bool = True, is_qat: bool = False) -> QuantizationConfig:
    """int8 activations as the int8 default, weights symmetric int4 ([-7, 7], stored in int8 by PT2E), int32 biases.

    Which ops keep int4 weights is the target's choice: CortexMQuantizer widens the weights of ops without a CMSIS-NN
    s4 kernel back to int8.
    """
    return get_symmetric_quantization_config(is_per_channel, is_qat, weight_qmin=-7, weight_qmax=7)
