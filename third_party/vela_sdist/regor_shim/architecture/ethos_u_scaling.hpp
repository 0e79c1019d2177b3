// Stands for regor's architecture/ethos_u_scaling.hpp: see regor_shim.hpp.
#pragma once
#include "regor_shim.hpp"
