// Stands for regor's common/scaling.hpp: see regor_shim.hpp.
#pragma once
#include "regor_shim.hpp"
