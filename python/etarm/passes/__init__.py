"""Graph passes: the TOSA partition pipeline (ordered by pass_manager) and edge passes.

The edge passes run before partitioning, as ExecuTorch transform passes; compile_model
applies them for FP targets (see edge_transform_passes.py). By hand::

    to_edge_transform_and_lower(
        exported,
        transform_passes=[
            ConvertInt64ConstOpsToInt32Pass(),
            ConvertInt64OutputOpsToInt32Pass(),
            InsertInt32CastsAfterInt64PlaceholdersPass(),
        ],
        partitioner=[partitioner],
    )
"""

from etarm.passes.convert_int64_const_ops_to_int32 import ConvertInt64ConstOpsToInt32Pass
from etarm.passes.convert_int64_output_ops_to_int32 import ConvertInt64OutputOpsToInt32Pass
from etarm.passes.insert_int32_casts_after_int64_placeholders import InsertInt32CastsAfterInt64PlaceholdersPass
from etarm.passes.to_device import ToDevicePass

__all__ = [
    "ConvertInt64ConstOpsToInt32Pass",
    "ConvertInt64OutputOpsToInt32Pass",
    "InsertInt32CastsAfterInt64PlaceholdersPass",
    "ToDevicePass",
]
