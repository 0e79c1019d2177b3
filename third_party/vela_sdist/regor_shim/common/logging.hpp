// Stands for regor's common/logging.hpp: see regor_shim.hpp.
#pragma once
#include "regor_shim.hpp"
