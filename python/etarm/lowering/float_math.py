"""Float functions TOSA 1.0 lacks, composed from its elementwise ops.

Each composition is chosen to be exact at the edge values torch users rely on (0, +-1,
+-inf, NaN) and to avoid cancellation, so results stay within a few ulp of torch:
  sqrt(x)   = 1 / rsqrt(x)             (x * rsqrt(x) would give NaN at 0)
  a / b     = a * (1 / b)               (<= 1.5 ulp; 1/b is subnormal only for |b| > 2^126)
  expm1, log1p: Kahan's / Goldberg's forms, accurate near 0 where exp(x)-1 and log(1+x) are not
  atan      : Cephes' range reduction + degree-4 polynomial (~2 ulp); asin, acos, atanh,
              asinh, acosh are rewritten through atan / log1p in cancellation-free forms
  erfinv    : Giles' single-precision polynomials (~3e-7 relative)
POW is UNPREDICTABLE in TOSA for a base <= 0 or non-finite operands, so ``power``
only ever feeds it positive finite values and patches the edge cases with SELECT.
"""

from __future__ import annotations

import math

import tosa_serializer as ts

from etarm.lowering.compose import Composer

INF = float("inf")
NAN = float("nan")
# Magnitude from which every float of the type is an integer (2^mantissa bits).
_INTEGRAL_FROM = {ts.DType.FP32: 2.0**23, ts.DType.FP16: 2.0**10, ts.DType.BF16: 2.0**7}


def divide(c: Composer, a, b):
    if isinstance(b, (int, float)):
        return c.mul(a, 1.0 / b if b != 0 else math.copysign(INF, b))
    return c.mul(a, c.reciprocal(b))


def sqrt(c: Composer, x):
    return c.reciprocal(c.rsqrt(x))


def round_half_even(c: Composer, x):
    """CAST float->int32 rounds to nearest even; values beyond 2^23 are integers already."""
    x = c.tensor(x)
    rounded = c.cast(c.cast(x, ts.DType.INT32), x.dtype)
    return c.select(c.gt(_INTEGRAL_FROM[x.dtype], c.abs(x)), rounded, x)


def sign(c: Composer, x):
    """-1, 0 or 1 (torch.sign(NaN) is 0)."""
    x = c.tensor(x)
    return c.select(c.gt(x, 0.0), 1.0, c.select(c.lt(x, 0.0), -1.0, 0.0, dtype=x.dtype))


def with_sign_of(c: Composer, magnitude, x):
    """``magnitude`` negated where ``x`` < 0 (for odd functions computed on |x|)."""
    return c.select(c.lt(x, 0.0), c.neg(magnitude), magnitude)


def expm1(c: Composer, x):
    """Kahan: (u - 1) * x / log(u) with u = exp(x) cancels exp's rounding error."""
    x = c.tensor(x)
    u = c.exp(x)
    u_minus_1 = c.sub(u, 1.0)
    general = c.mul(c.mul(u_minus_1, x), c.reciprocal(c.log(u)))
    result = c.select(c.eq(u, 1.0), x, general)
    result = c.select(c.eq(u_minus_1, -1.0), -1.0, result)
    return c.select(c.eq(u, INF), INF, result)


def log1p(c: Composer, x):
    """Goldberg: log(u) * x / (u - 1) with u = 1 + x cancels the rounding of 1 + x."""
    x = c.tensor(x)
    u = c.add(x, 1.0)
    general = c.mul(c.log(u), c.mul(x, c.reciprocal(c.sub(u, 1.0))))
    result = c.select(c.eq(u, 1.0), x, general)
    return c.select(c.eq(u, INF), INF, result)


def atan(c: Composer, x):
    """Cephes atanf: reduce |x| to [0, tan(pi/8)] around 0, pi/4 or pi/2, then a polynomial."""
    x = c.tensor(x)
    a = c.abs(x)
    beyond_3pi8 = c.gt(a, 2.414213562373095)
    beyond_pi8 = c.gt(a, 0.4142135623730950)
    reduced = c.select(
        beyond_3pi8,
        c.neg(c.reciprocal(a)),
        c.select(beyond_pi8, c.mul(c.sub(a, 1.0), c.reciprocal(c.add(a, 1.0))), a),
    )
    base = c.select(beyond_3pi8, math.pi / 2, c.select(beyond_pi8, math.pi / 4, 0.0, dtype=x.dtype))
    z = c.mul(reduced, reduced)
    poly = c.const(8.05374449538e-2, x.dtype)
    for coefficient in (-1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1):
        poly = c.add(c.mul(poly, z), coefficient)
    series = c.add(c.mul(c.mul(poly, z), reduced), reduced)
    return with_sign_of(c, c.add(base, series), x)


def asin(c: Composer, x):
    """atan(x / sqrt((1 - x)(1 + x))): exact factors near +-1, +-pi/2 at +-1, NaN beyond."""
    x = c.tensor(x)
    return atan(c, c.mul(x, c.rsqrt(c.mul(c.sub(1.0, x), c.add(x, 1.0)))))


def acos(c: Composer, x):
    """2 atan(sqrt((1 - x) / (1 + x))): no cancellation near 1 (pi/2 - asin would lose it)."""
    x = c.tensor(x)
    ratio = c.mul(sqrt(c, c.sub(1.0, x)), c.rsqrt(c.add(x, 1.0)))
    return c.mul(atan(c, ratio), 2.0)


def atanh(c: Composer, x):
    """0.5 log1p(2a / (1 - a)) on a = |x| (no cancellation in 1 + ...), +-inf at +-1, NaN beyond."""
    x = c.tensor(x)
    a = c.abs(x)
    return with_sign_of(c, c.mul(log1p(c, c.mul(c.add(a, a), c.reciprocal(c.sub(1.0, a)))), 0.5), x)


_LN2 = math.log(2.0)
# Beyond this, asinh(x) = log(2x) and acosh(x) = log(2x) to float precision (and x^2 could overflow).
_LOG_2X_FROM = 2.0**12


def asinh(c: Composer, x):
    """log1p(a + a^2 / (1 + sqrt(1 + a^2))) on a = |x| (accurate near 0), log(2a) for large a."""
    x = c.tensor(x)
    a = c.abs(x)
    a2 = c.mul(a, a)
    near = log1p(c, c.add(a, c.mul(a2, c.reciprocal(c.add(sqrt(c, c.add(a2, 1.0)), 1.0)))))
    far = c.add(c.log(a), _LN2)
    return with_sign_of(c, c.select(c.gt(a, _LOG_2X_FROM), far, near), x)


def acosh(c: Composer, x):
    """log1p(t + sqrt(2t + t^2)) with t = x - 1 (accurate near 1), log(2x) for large x."""
    x = c.tensor(x)
    t = c.sub(x, 1.0)
    near = log1p(c, c.add(t, sqrt(c, c.mul(t, c.add(t, 2.0)))))
    far = c.add(c.log(x), _LN2)
    # Below 1 (where t (t + 2) turns positive again for x < -1) the result is NaN.
    return c.select(c.ge(x, 1.0), c.select(c.gt(x, _LOG_2X_FROM), far, near), NAN)


def sinh(c: Composer, x):
    """(u + u / (u + 1)) / 2 with u = expm1(|x|) below 1 (no cancellation), (e - 1/e) / 2 above."""
    x = c.tensor(x)
    a = c.abs(x)
    e = c.exp(a)
    # Kahan's expm1 of a in [0, 1): e == 1 only when a is tiny.
    u = c.select(c.eq(e, 1.0), a, c.mul(c.mul(c.sub(e, 1.0), a), c.reciprocal(c.log(e))))
    small = c.add(u, c.mul(u, c.reciprocal(c.add(u, 1.0))))
    large = c.sub(e, c.reciprocal(e))
    return with_sign_of(c, c.mul(c.select(c.gt(1.0, a), small, large), 0.5), x)


def cosh(c: Composer, x):
    e = c.exp(c.abs(x))
    return c.mul(c.add(e, c.reciprocal(e)), 0.5)


def tan(c: Composer, x):
    x = c.tensor(x)
    return c.mul(c.sin(x), c.reciprocal(c.cos(x)))


# Giles, "Approximating the erfinv function" (GPU Computing Gems), single precision.
_ERFINV_CENTRAL = (
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941,
)
_ERFINV_TAIL = (
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682,
)


def erfinv(c: Composer, x):
    x = c.tensor(x)
    w = c.neg(c.log(c.mul(c.sub(1.0, x), c.add(x, 1.0))))

    def horner(coefficients, t):
        p = c.const(coefficients[0], x.dtype)
        for coefficient in coefficients[1:]:
            p = c.add(c.mul(p, t), coefficient)
        return p

    central = horner(_ERFINV_CENTRAL, c.sub(w, 2.5))
    tail = horner(_ERFINV_TAIL, c.sub(sqrt(c, w), 3.0))
    result = c.mul(c.select(c.gt(5.0, w), central, tail), x)
    # At +-1, w is inf and the tail polynomial gives NaN: erfinv(+-1) = +-inf.
    return c.select(c.eq(c.abs(x), 1.0), c.mul(x, INF), result)


def power(c: Composer, base, exponent):
    """torch.pow for float tensors, keeping TOSA POW to a positive finite base and finite exponent.

    |base|^exponent comes from POW where that holds and from exp(exponent * log|base|)
    otherwise (0, inf: exact limits), with x^0 = 1^y = 1; a negative base gives NaN for a
    non-integral exponent and flips the sign for an odd one.
    """
    x, y = c.tensor(base), c.tensor(exponent)
    a = c.abs(x)
    finite_y = c.gt(INF, c.abs(y))
    regular = c.logical_and(c.logical_and(c.gt(a, 0.0), c.gt(INF, a)), finite_y)
    core = c.pow(c.select(regular, a, 1.0), c.select(regular, y, 1.0))
    limit = c.exp(c.mul(y, c.log(a)))
    magnitude = c.select(regular, core, limit)
    magnitude = c.select(c.logical_or(c.eq(y, 0.0), c.eq(a, 1.0)), 1.0, magnitude)
    integral = c.eq(c.floor(y), y)
    odd = c.logical_and(integral, c.logical_not(c.eq(c.mul(c.floor(c.mul(y, 0.5)), 2.0), y)))
    negative = c.gt(0.0, x)
    signed = c.select(c.logical_and(negative, odd), c.neg(magnitude), magnitude)
    # A finite negative base with a non-integral exponent has no real power (-inf's is +-0 or inf).
    no_real_power = c.logical_and(c.logical_and(negative, c.gt(INF, a)), c.logical_not(integral))
    return c.select(no_real_power, NAN, signed)


def power_of_constant(c: Composer, x, exponent: float):
    """x ** exponent for a compile-time exponent: products for small integers, else POW."""
    x = c.tensor(x)
    if exponent == 0:
        return c.filled(1.0, x.dtype)  # NaN ** 0 == 1 too
    if exponent == 0.5:
        return sqrt(c, x)
    if exponent == -0.5:
        return c.rsqrt(x)
    if float(exponent).is_integer() and abs(exponent) <= 16:
        result = integer_power(c, x, int(abs(exponent)))
        return c.reciprocal(result) if exponent < 0 else result
    if float(exponent).is_integer() or not math.isfinite(exponent):
        return power(c, x, exponent)
    # Non-integral exponent: NaN for finite x < 0, the exp/log limit at 0 and +-inf.
    regular = c.logical_and(c.gt(x, 0.0), c.gt(INF, x))
    core = c.pow(c.select(regular, x, 1.0), exponent)
    edge = c.exp(c.mul(c.log(c.select(c.eq(x, -INF), INF, x)), exponent))
    return c.select(regular, core, edge)


def integer_power(c: Composer, x, n: int):
    """x^n (n >= 1) by repeated squaring (a few ulp for floats, exact signs, no POW domain limits)."""
    result, square = None, x
    while n:
        if n & 1:
            result = square if result is None else c.mul(result, square)
        n >>= 1
        if n:
            square = c.mul(square, square)
    return result
