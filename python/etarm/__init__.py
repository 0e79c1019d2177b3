"""etarm: ahead-of-time lowering of PyTorch models for Arm targets."""

__version__ = "0.1.0"
