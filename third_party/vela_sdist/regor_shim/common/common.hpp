// Stands for regor's common/common.hpp: see regor_shim.hpp.
#pragma once
#include "regor_shim.hpp"
