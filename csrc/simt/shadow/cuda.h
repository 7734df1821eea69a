// Shadow of <cuda.h>: the driver API types and constants come from the CUDA toolkit's own header
// (declarations only: nothing in the emulator calls the driver).
#pragma once
#include "simt/qualifiers.h"
#include_next <cuda.h>
