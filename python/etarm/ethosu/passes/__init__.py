"""The Ethos-U backend's TOSA rewrites, one pass a file (``Stage.BACKEND``).

They let an Ethos-U run what the direct lowering would not, or run it faster, and each
keeps the graph's results bit-exact. They run on the lowered graph of a partition, before
the TOSA checks and Vela; ``etarm/ethosu/pipeline.py`` lists them in order and says for
which family each one runs. The partitioner's ATen checks accept what a rewrite handles,
and each names the rule it works around (npu_rules.py).

Ethos-U55/U65 only, so that the NPU can run it at all:

- ``PadStridedConvolutions``: CONV2D stride > 3 with padding -> explicit padding, then an
  unpadded CONV2D.
- ``SubsampleStridedConvolutions``: DEPTHWISE_CONV2D (or dilated CONV2D) stride > 3 -> the
  same convolution at stride 1, then every s-th row and column.
- ``PadStridedMaxPools``: MAX_POOL2D stride > 3 with padding -> PAD with the type's lowest
  value, then an unpadded MAX_POOL2D.
- ``NearestResizesAsHalfPixel``: RESIZE NEAREST by 2, 4 or 8 in the half-pixel encoding,
  the one Vela compiles.
- ``ExtremumCastsAsRescales``: the int32 -> int8/int16 CAST after a MAXIMUM/MINIMUM of
  widened int8/int16 values becomes a RESCALE (U55/U65 narrow only by RESCALE).
- ``SumsInSteps``: REDUCE_SUM over more than 2**16 values in two steps.
- ``FloorShiftsAsRoundedShifts``: an int32 ARITHMETIC_RIGHT_SHIFT by a constant that floors
  becomes a rounding one of the value lowered by half a step (U55/U65 SHR cannot floor).
- ``MinimaAsComplementedMaxima``: an int8 REDUCE_MIN read by a RESHAPE becomes a REDUCE_MAX
  between two complementing TABLEs (Vela 5.2.0 miscompiles the reshaped min-reduction).
- ``RescalesBeforeSlicesAndTiles``: a widening RESCALE of a SLICE (or of a TILE or RESHAPE of
  one) rescales the source first (Vela 5.2.0 writes such a RESCALE with the unsliced height).

Ethos-U85 only, so that the NPU computes what TOSA says:

- ``SlicesAtLowestRank``: a SLICE of rank above 4 at rank 4 or below (Vela 5.2.0 gives every
  batch of the MATMUL it feeds the first batch's data).

Fewer cycles: ``ReductionsWithoutTransposes``, ``GlobalPoolsAsSums``, ``NarrowTransposes``,
``TrivialTransposesAsReshapes``, ``TransposesWithUnitAxesInPlace``, ``PointwiseRowsAsBatch`` (all
families), ``TransposesAtLowestRank`` (Ethos-U85). ``graph_edits`` holds what several of them share.
"""
