// Stands for regor's architecture/ethosu85/ethos_u85.hpp: see regor_shim.hpp.
#pragma once
#include "regor_shim.hpp"
