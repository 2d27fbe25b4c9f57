// The sparse plane's tile step of tile_step.c compiled again for CPUs with AVX-512
// (VL), as step_ternary.c does for the dense kernels: Life's adders as vpternlogq.
#define TESSERA_TERNARY 1
#define TESSERA_TARGET "avx2,avx512f,avx512vl"
#define tessera_tiles_step tessera_tiles_step_ternary
#include "tile_step.c"
