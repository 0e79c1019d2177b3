// Stands for regor's compiler/tensor_properties.hpp: see regor_shim.hpp.
#pragma once
#include "regor_shim.hpp"
