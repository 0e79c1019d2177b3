"""The VGF backend's TOSA rewrites, one pass a file (``Stage.BACKEND``).

They run on the lowered graph of a partition, before the model converter, and keep the
graph's results exact; ``etarm/vgf/pipeline.py`` lists them.

- ``RankZeroAsShapeOne``: every rank-0 tensor becomes shape [1] (a Vulkan tensor has at least
  one dimension).
"""
