"""Graph passes: one pass per file, named after what it does, on the bases in base.py.

Each target's pipeline (``<target>/pipeline.py``) lists the passes it runs, in flow order;
``etarm passes -t TARGET`` prints it. The edge passes are ExecuTorch passes as well::

    from etarm.passes.convert_int64_const_ops_to_int32 import ConvertInt64ConstOpsToInt32Pass
    to_edge_transform_and_lower(exported, transform_passes=[ConvertInt64ConstOpsToInt32Pass()], partitioner=[...])

Helpers the passes share: int64_narrowing.py, dtype_casts.py, fake_values.py.
"""
