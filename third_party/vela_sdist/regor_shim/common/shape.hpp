// Stands for regor's common/shape.hpp: see regor_shim.hpp.
#pragma once
#include "regor_shim.hpp"
