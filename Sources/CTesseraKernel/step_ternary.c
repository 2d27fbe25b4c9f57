// The dense kernels of step_avx2.c compiled again for CPUs with AVX-512 (VL): the same
// 256-bit vectors and walk, Life's full adders as vpternlogq (an exclusive or of three,
// a majority of three), a third fewer operations a row. step_avx2.c's entry points send
// Life and Life-like rules here where the CPU has it; compiled rules stay there (their
// machine code has vpternlogq of its own, rule_jit.c).
#define TESSERA_TERNARY 1
#define TESSERA_TARGET "avx2,avx512f,avx512vl"
#define tessera_step_rows_avx2 tessera_step_rows_ternary
#define tessera_step_tracked_avx2 tessera_step_tracked_ternary
#include "step_avx2.c"
