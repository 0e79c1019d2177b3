// Stands for regor's compiler/scheduler_operation.hpp: see regor_shim.hpp.
#pragma once
#include "regor_shim.hpp"
