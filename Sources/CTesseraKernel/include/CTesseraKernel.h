#ifndef C_TESSERA_KERNEL_H
#define C_TESSERA_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/// Nonzero when this CPU can run `tessera_step_rows_avx2`.
int tessera_cpu_has_avx2(void);

/// Steps rows [rowBegin, rowEnd) of a bit grid (64 cells per word, bit i of word j is
/// column 64*j+i) from `src` into `dst` under the rule given as masks: bit n of
/// `birth` means a dead cell with n live neighbours is born, bit n of `survive` that a
/// live cell with n live neighbours survives.
///
/// Rows are `stride` words apart; `words` (a multiple of 4) words of each row are
/// stepped. Rows rowBegin-1 and rowEnd are read. The word before and the word after
/// every stepped row must be readable and zero (guard words), so the edge of a row
/// sees dead neighbours. `src` rows must be 32-byte aligned.
/// Returns 1 when it stepped. A build for a CPU family without AVX2 (aarch64, say) has
/// no such loop and returns 0 without touching anything. On x86 it always steps and
/// does not look at the CPU: call it only where `tessera_cpu_has_avx2()` is nonzero,
/// or the process dies of SIGILL.
int tessera_step_rows_avx2(const uint64_t *src, uint64_t *dst, size_t stride,
                           size_t words, size_t rowBegin, size_t rowEnd,
                           uint16_t birth, uint16_t survive);

#endif
