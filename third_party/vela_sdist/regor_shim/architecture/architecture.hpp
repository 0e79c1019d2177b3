// Stands for regor's architecture/architecture.hpp: see regor_shim.hpp.
#pragma once
#include "regor_shim.hpp"
