// Stands for regor's architecture/ethosu85/ethos_u85.hpp, which the encoder also includes
// by its bare name: see regor_shim.hpp.
#pragma once
#include "regor_shim.hpp"
