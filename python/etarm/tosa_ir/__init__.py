"""The TOSA IR etarm builds: specifications, the graph, dtype mapping, quantization parameters."""
