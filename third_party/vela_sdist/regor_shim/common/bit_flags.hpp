// Stands for regor's common/bit_flags.hpp: see regor_shim.hpp.
#pragma once
#include "regor_shim.hpp"
