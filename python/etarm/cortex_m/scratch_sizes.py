"""The scratch bytes CMSIS-NN's convolution wrappers, transposed convolution and average pools ask for, per code path (MVE, DSP, SCALAR), ahead of time
(the s4 wrappers, int4 weights, ask the same on every path).

CMSIS-NN's ``*_get_buffer_size`` functions answer for the path their build selects; these are their documented
formulas for each path, so the compiler can record in the program what the image for its CPU will need.
tests/cortex_m/test_scratch_sizes.py compares them with the host-built functions (``_mve``, ``_dsp`` and the plain
build) over a grid of shapes.
"""

from __future__ import annotations

CODE_PATHS = ("MVE", "DSP", "SCALAR")
# arm_nnsupportfunctions.h: the channels the MVE depthwise kernel takes per block.
_MVE_DEPTHWISE_CHANNEL_BLOCK = 124


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def _im2col_s8(path: str, taps: int) -> int:
    """arm_convolve_s8: MVE keeps four columns padded to 8 int8 lanes, the others two int16 columns padded to 4."""
    if path == "MVE":
        return 4 * _round_up(taps, 8)
    return 2 * _round_up(taps, 4) * 2


def convolve_wrapper(
    path: str,
    s16: bool,
    input_nhwc: tuple[int, int, int, int],
    kernel_hw: tuple[int, int],
    stride: tuple[int, int],
    padding: tuple[int, int],
    dilation: tuple[int, int],
) -> int:
    """arm_convolve_wrapper_s8/_s16_get_buffer_size for ``path``: input [N, H, W, C_in], kernel [KH, KW]
    (stride, padding and dilation as [h, w])."""
    _, in_h, _, in_c = input_nhwc
    kernel_h, kernel_w = kernel_hw
    taps = kernel_h * kernel_w * in_c
    if s16:
        # Only the DSP path's fast kernel (below 512 taps, no dilation) keeps an int16 column pair.
        fast = taps < 512 and tuple(dilation) == (1, 1)
        return 2 * taps * 2 if path == "DSP" and fast else 0
    if tuple(padding) == (0, 0) and tuple(kernel_hw) == (1, 1) and tuple(dilation) == (1, 1):
        return 0  # arm_convolve_1x1_s8_fast and arm_convolve_1x1_s8 need none
    if in_h == 1 and dilation[1] == 1 and kernel_h == 1 and (stride[1] * in_c) % 4 == 0:
        return 0 if path == "MVE" else _im2col_s8(path, taps)  # arm_convolve_1_x_n_s8
    return _im2col_s8(path, taps)


def depthwise_conv_wrapper(
    path: str,
    s16: bool,
    input_nhwc: tuple[int, int, int, int],
    kernel_hw: tuple[int, int],
    out_channels: int,
    padding: tuple[int, int],
    dilation: tuple[int, int],
) -> int:
    """arm_depthwise_conv_wrapper_s8/_s16_get_buffer_size for ``path``: input [N, H, W, C_in], kernel [KH, KW],
    C_in * depth_multiplier output channels (padding and dilation as [h, w])."""
    batches, _, _, in_c = input_nhwc
    kernel_h, kernel_w = kernel_hw
    window = kernel_h * kernel_w
    no_dilation = tuple(dilation) == (1, 1)
    if s16:
        if out_channels != in_c or not no_dilation or window >= 512 or path == "SCALAR":
            return 0  # arm_depthwise_conv_s16, or the fast kernel's plain C, which needs none
        return 4 * in_c * window * 2 + 8 if path == "MVE" else in_c * window * 2
    if out_channels != in_c or batches != 1 or not no_dilation:
        return 0  # arm_depthwise_conv_s8
    if path == "MVE":
        return 4 * _MVE_DEPTHWISE_CHANNEL_BLOCK * window
    if path == "SCALAR" or (tuple(kernel_hw) == (3, 3) and max(padding) <= 1):
        return 0  # arm_depthwise_conv_3x3_s8, or the optimized kernel's plain C
    return in_c * window * 2


def avgpool(path: str, channels: int) -> int:
    """arm_avgpool_s8/_s16_get_buffer_size for ``path``: the DSP path sums each window's channels in int32s."""
    return 4 * channels if path == "DSP" else 0


def convolve_wrapper_s4(
    input_nhwc: tuple[int, int, int, int],
    kernel_hw: tuple[int, int],
    padding: tuple[int, int],
    dilation: tuple[int, int],
) -> int:
    """arm_convolve_wrapper_s4_get_buffer_size, the same on every path (int4 weights, int8 activations): the general
    kernel's two int16 im2col columns; none for the 1x1 kernels (no padding, no dilation)."""
    if tuple(padding) == (0, 0) and tuple(kernel_hw) == (1, 1) and tuple(dilation) == (1, 1):
        return 0
    return 2 * kernel_hw[0] * kernel_hw[1] * input_nhwc[3] * 2


def depthwise_conv_wrapper_s4(
    input_nhwc: tuple[int, int, int, int], kernel_hw: tuple[int, int], out_channels: int, dilation: tuple[int, int]
) -> int:
    """arm_depthwise_conv_wrapper_s4_get_buffer_size, the same on every path: the optimized kernel (multiplier 1, one
    image, no dilation) keeps one int16 im2col window of every channel, also in plain C; the general one none."""
    batches, _, _, in_c = input_nhwc
    if out_channels != in_c or batches != 1 or tuple(dilation) != (1, 1):
        return 0
    return in_c * kernel_hw[0] * kernel_hw[1] * 2


def transpose_conv(
    path: str,
    s16: bool,
    input_nhwc: tuple[int, int, int, int],
    kernel_hw: tuple[int, int],
    output_nhwc: tuple[int, int, int, int],
) -> int:
    """What cortex_m::quantized_transpose_conv2d takes for ``path``: arm_transpose_conv_s8's two buffers, the same on
    every path in this snapshot, one after the other: its column buffer (arm_transpose_conv_s8_get_buffer_size: one
    int32 per input pixel, kernel tap and output channel) and its int32 output image (the header's output_ctx size:
    output width * height * channels * 4). int16 (the project's kernel) needs none."""
    if s16:
        return 0
    _, in_h, in_w, _ = input_nhwc
    _, out_h, out_w, out_c = output_nhwc
    kernel_h, kernel_w = kernel_hw
    return 4 * kernel_h * kernel_w * in_h * in_w * out_c + 4 * out_h * out_w * out_c
