"""python/etarm/cortex_m/scratch_sizes.py against CMSIS-NN's own size functions built on the host: the _mve and _dsp
functions and the plain build's (SCALAR), for every convolution wrapper branch (s8, s16 and s4) and the average
pools over a grid of shapes."""

import itertools
import os
import subprocess

from etarm.cortex_m import scratch_sizes

# (kind, N, H, W, C_in, C_out, KH, KW): 1x1s, one-row images, 3x3 and larger windows, more than 512 taps, batches,
# depthwise with multipliers and channel counts around the MVE block of 124.
SHAPES = [
    ("conv", 1, 8, 8, 3, 8, 3, 3),
    ("conv", 2, 5, 7, 13, 4, 1, 1),
    ("conv", 1, 1, 12, 8, 6, 1, 3),
    ("conv", 1, 1, 9, 3, 5, 1, 5),
    ("conv", 1, 6, 6, 64, 16, 3, 3),
    ("conv", 1, 4, 4, 7, 2, 2, 5),
    ("depthwise", 1, 8, 8, 8, 8, 3, 3),
    ("depthwise", 1, 9, 9, 130, 130, 5, 5),
    ("depthwise", 2, 6, 6, 4, 4, 3, 3),
    ("depthwise", 1, 7, 7, 3, 6, 3, 3),
    ("depthwise", 1, 30, 30, 2, 2, 23, 23),
    ("depthwise", 1, 5, 5, 16, 16, 1, 1),
    ("avgpool", 1, 8, 8, 7, 7, 2, 2),
    ("avgpool", 2, 3, 5, 130, 130, 3, 3),
]
WINDOWS = [((1, 1), (0, 0), (1, 1)), ((2, 1), (1, 1), (1, 1)), ((1, 2), (2, 0), (1, 1)), ((1, 1), (0, 1), (2, 1))]


def cases():
    for shape, (stride, padding, dilation), s16 in itertools.product(SHAPES, WINDOWS, (False, True)):
        yield shape, stride, padding, dilation, s16
    # int4 weights (a8w4): the s4 wrappers over the same convolutions (one size on every path).
    for shape, (stride, padding, dilation) in itertools.product(SHAPES, WINDOWS):
        if shape[0] != "avgpool":
            yield (f"{shape[0]}_s4", *shape[1:]), stride, padding, dilation, False


def python_sizes(shape, stride, padding, dilation, s16):
    kind, n, h, w, c_in, c_out, kh, kw = shape
    if kind == "conv_s4":
        return [scratch_sizes.convolve_wrapper_s4((n, h, w, c_in), (kh, kw), padding, dilation)] * 3
    if kind == "depthwise_s4":
        return [scratch_sizes.depthwise_conv_wrapper_s4((n, h, w, c_in), (kh, kw), c_out, dilation)] * 3
    if kind == "conv":
        return [
            scratch_sizes.convolve_wrapper(path, s16, (n, h, w, c_in), (kh, kw), stride, padding, dilation)
            for path in scratch_sizes.CODE_PATHS
        ]
    if kind == "avgpool":
        return [scratch_sizes.avgpool(path, c_in) for path in scratch_sizes.CODE_PATHS]
    return [
        scratch_sizes.depthwise_conv_wrapper(path, s16, (n, h, w, c_in), (kh, kw), c_out, padding, dilation)
        for path in scratch_sizes.CODE_PATHS
    ]


def test_formulas_equal_the_host_built_size_functions():
    all_cases = list(cases())
    lines = [
        " ".join(map(str, [shape[0], int(s16), *shape[1:], *stride, *padding, *dilation]))
        for shape, stride, padding, dilation, s16 in all_cases
    ]
    tool = os.environ["CMSIS_NN_SCRATCH_SIZES"]
    answer = subprocess.run([tool], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True).stdout
    host = [list(map(int, line.split())) for line in answer.splitlines()]
    assert len(host) == len(all_cases)
    differ = [(case, want, python_sizes(*case)) for case, want in zip(all_cases, host) if python_sizes(*case) != want]
    assert not differ, differ[:5]
    # The grid reaches every branch: non-zero sizes on each path, and paths that disagree.
    assert all(any(sizes[i] for sizes in host) for i in range(3))
    assert any(len(set(sizes)) == 3 for sizes in host)
    s4 = [sizes for case, sizes in zip(all_cases, host) if case[0][0].endswith("_s4")]
    assert len(s4) == 48 and any(sizes[0] for sizes in s4) and any(not sizes[0] for sizes in s4)


# Transposed convolutions (N, H, W, C_in, C_out, KH, KW; int8: the int16 kernel is the project's and needs none) under
# each window, its dilation read as output_padding.
TRANSPOSE_SHAPES = [(1, 4, 4, 3, 5, 3, 3), (2, 3, 5, 8, 2, 4, 4), (1, 3, 6, 4, 3, 3, 5)]


def test_transposed_convolution_sizes_equal_the_host_built_size_functions():
    cases = list(itertools.product(TRANSPOSE_SHAPES, WINDOWS))
    lines = [
        " ".join(map(str, ["transpose_conv", 0, *shape, *stride, *padding, *extra]))
        for shape, (stride, padding, extra) in cases
    ]
    tool = os.environ["CMSIS_NN_SCRATCH_SIZES"]
    answer = subprocess.run([tool], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True).stdout
    host = [list(map(int, line.split())) for line in answer.splitlines()]
    assert len(host) == len(cases)
    for ((n, h, w, c_in, c_out, kh, kw), (stride, padding, extra)), want in zip(cases, host):
        size = [(e - 1) * s - 2 * p + k + x for e, s, p, k, x in zip((h, w), stride, padding, (kh, kw), extra)]
        got = [
            scratch_sizes.transpose_conv(path, False, (n, h, w, c_in), (kh, kw), (n, *size, c_out))
            for path in scratch_sizes.CODE_PATHS
        ]
        assert got == want, (n, h, w, c_in, c_out, kh, kw, stride, padding, extra)
        assert scratch_sizes.transpose_conv("MVE", True, (n, h, w, c_in), (kh, kw), (n, *size, c_out)) == 0
