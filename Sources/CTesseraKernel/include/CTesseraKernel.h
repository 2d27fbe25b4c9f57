#ifndef C_TESSERA_KERNEL_H
#define C_TESSERA_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/// Nonzero when this CPU can run `tessera_step_rows_avx2`.
int tessera_cpu_has_avx2(void);
/// Whether the CPU has AVX-512 with its 256-bit forms (VL): vpternlogq, any function of
/// three vectors in one operation, which Life's kernels and compiled rules' code then use.
int tessera_cpu_has_ternary(void);

/// One multiplexer of a compiled rule: register `result` becomes register `low` where
/// register `select` is 0 and `high` where it is 1, bit by bit.
typedef struct { uint8_t select, low, high, result; } tessera_gate;

/// At most the gates a reduced decision diagram of nine inputs needs (141), and some.
enum { TESSERA_MAX_GATES = 200 };

/// A rule as every kernel takes it, with no B0 (see `Rule.steps`).
///
/// With `compiled` 0 it is Life-like, given as masks: bit n of `birth` means a dead cell
/// with n live neighbours is born, bit n of `survive` that a live cell with n live
/// neighbours survives. Else it is a truth table over the 3x3 neighbourhood, compiled
/// into a straight line of multiplexers over registers: register 0 is all zeros, 1 all
/// ones, 2 + k the cells of input k (k = 0 NW, 1 N, 2 NE, 3 W, 4 the cell itself, 5 E,
/// 6 SW, 7 S, 8 SE); the gates use `registers` registers in all, and the next state is
/// register `output` after the last. `code`, where not NULL, is the same gates as machine
/// code, which the AVX2 kernels run instead, and `code512` the same for vectors of 512
/// cells where the CPU has AVX-512; they belong to the rule (`tessera_rule_release`).
/// `cost` is what the gates cost a vector of cells: operations of machine code where the
/// CPU runs AVX2, else gates. `luts` is how many functions of three inputs the gates come
/// to (one vpternlogq each, which the machine code uses where it has AVX-512 and they
/// save a fifth of the gates), where they give the table; else 0.
typedef struct {
    uint16_t birth, survive;
    uint8_t compiled;
    uint8_t output;
    uint16_t gates, registers, cost, luts;
    tessera_gate program[TESSERA_MAX_GATES];
    void *code, *code512;
} tessera_rule;

enum { TESSERA_FIRST_GATE = 11 };

/// Compiles the truth table `table` (bit i of word i / 64 is the next state of a cell
/// whose neighbourhood is i, input k as bit k) into `rule`'s gates: a reduced ordered
/// decision diagram, in whichever input order needs the fewest of those it tries (a
/// few fixed ones, then trades of two inputs from the best of them). Returns 0 if
/// the table has B0 (entry 0 set), which the kernels never see.
int tessera_rule_compile(const uint64_t table[8], tessera_rule *rule);

/// Frees what `tessera_rule_compile` made besides the struct (its machine code).
void tessera_rule_release(tessera_rule *rule);

/// Whether compiled rules get machine code here: an x86-64 Linux CPU with AVX2, where
/// the system lets a process make memory executable.
int tessera_can_make_code(void);

/// A compiled rule applied to 64 cells, `inputs[k]` holding input k of each: the
/// portable path, for CPUs without AVX2.
uint64_t tessera_rule_apply(const tessera_rule *rule, const uint64_t inputs[9]);

/// Whether the rule is Conway's Life, B3/S23, which every kernel steps by a shorter path.
static inline int tessera_is_life(const tessera_rule *rule) {
    return !rule->compiled && rule->birth == (1u << 3) && rule->survive == ((1u << 2) | (1u << 3));
}

/// A Larger than Life rule with two states (Golly's `R…,C0/C2,M…,S…,B…,N…`): a cell's
/// count is of the live cells within `range` of it, in the (2r+1)^2 box where `reach` is
/// NULL, else in rows dy = -r..r spanning |dx| <= reach[dy + r] (a diamond, a disc),
/// itself included where `countsItself`; a dead cell is born where the count lies in
/// [birthLow, birthHigh], a live one survives where it lies in [surviveLow, surviveHigh].
typedef struct {
    int range, countsItself;
    int birthLow, birthHigh, surviveLow, surviveHigh;
    const int *reach;
} tessera_ltl_rule;

/// One generation of a width x height board (rows `stride` words apart, bit x of word
/// x / 64 column x) from `src` into `dst` (not the same memory): a torus where `wraps`,
/// else dead beyond its edges; the box of range 127 or less in AVX2 where `avx2` (only
/// where `tessera_cpu_has_avx2()`), in AVX-512 where the CPU has it too.
/// Returns 0 if it could not allocate its scratch rows.
int tessera_ltl_step(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                     int height, int wraps, int avx2);

/// Whether `tessera_ltl_step_rows` steps this rule on a board this wide: all but the
/// von Neumann diamond's own kernel, whose sums start above the board.
int tessera_ltl_steps_rows(const tessera_ltl_rule *rule, int width);

/// Rows `firstRow ..< endRow` of `tessera_ltl_step`'s generation, and no others (where
/// `tessera_ltl_steps_rows`): threads may each step a band of the same board.
int tessera_ltl_step_rows(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                          int height, int wraps, int avx2, int firstRow, int endRow);

/// The box's own steps up to range 127, which `tessera_ltl_step_rows` picks between
/// (declared for tests that check each where the CPU runs it): in AVX2 (where
/// `tessera_cpu_has_avx2()`) or in AVX-512 (where `tessera_cpu_has_avx512bw()`). Each
/// returns 0 if it could not allocate or does not take the rule.
int tessera_ltl_box_step_avx2(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                              int height, int wraps, int firstRow, int endRow);
int tessera_ltl_box_step_avx512(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                                int height, int wraps, int firstRow, int endRow);
int tessera_cpu_has_avx512bw(void);

/// One generation of a Generations rule of `states` states on a width x height board of
/// `bits` bit planes (`source[k]`, `target[k]`: bit k of each cell's state, rows
/// `stride` words apart), whose live cells (state 1) step by `rule`, with no B0: a torus
/// where `wraps`, else dead beyond the edges; by the tiles' AVX2 kernel where `avx2`
/// (only where `tessera_cpu_has_avx2()`), else a word at a time; only rows `firstRow
/// ..< endRow` of the target (threads may each step a band of the same board). Returns 0
/// if it could not allocate its rows.
int tessera_generations_step(const tessera_rule *rule, int states, const uint64_t *const *source, uint64_t *const *target,
                             int bits, size_t stride, int width, int height, int wraps, int avx2, int firstRow, int endRow);

/// One generation of a rule from a Golly rule file on a width x height board of `bits`
/// bit planes (as for Generations), each cell's next state the leaf its inputs reach in
/// the decision tree `nodes` from `root` (Moore: nw, ne, sw, se, n, w, e, s, c; von
/// Neumann: n, w, e, s, c; each node a run of entries, one per state): a torus where
/// `wraps`, else state 0 beyond the edges. `changes` (NULL: unknown) marks the cells
/// that differ from the generation before, a bit a cell in the planes' layout: a cell
/// with none of them within reach keeps its state; where `target_holds_before`, the
/// target already holds the generation before (the one `changes` was taken against), so
/// such cells are left as they are there rather than copied. `changed` (NULL: not
/// wanted; else all 0) gets the same for this step. Only rows `firstRow ..< endRow` of
/// the target and of `changed` are written (threads may each step a band of the same
/// board). Returns 0 if it could not allocate its rows.
int tessera_tree_step(const uint32_t *nodes, uint32_t root, int moore, const uint64_t *const *source,
                      uint64_t *const *target, int bits, size_t stride, int width, int height, int wraps,
                      const uint64_t *changes, int target_holds_before, uint64_t *changed,
                      int firstRow, int endRow);

/// The state planes (`bits` of them, `words` words each) after a generation whose live
/// cells' next state is `next` (1 where a dead cell is born or a live one survives, as a
/// two-state rule of the live cells gives it): states past 1 count on to `states` and
/// wrap to 0; a dying cell is not born into. Larger than Life's history states.
void tessera_states_after(const uint64_t *next, int states, const uint64_t *const *source, uint64_t *const *target, int bits,
                          size_t words);

/// Steps rows [rowBegin, rowEnd) of a bit grid (64 cells per word, bit i of word j is
/// column 64*j+i) from `src` into `dst` under `rule`.
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
                           const tessera_rule *rule);

/// The same step 512 cells a vector (step_avx512.c), which `tessera_step_rows_avx2`
/// takes where the CPU has AVX-512 (F, VL): for Life and Life-like rules, and compiled
/// ones through their `code512`; returns 0 without touching anything otherwise.
/// Declared for tests.
int tessera_step_rows_avx512(const uint64_t *src, uint64_t *dst, size_t stride,
                             size_t words, size_t rowBegin, size_t rowEnd,
                             const tessera_rule *rule);

/// A soup's row (`Soup.cells`): bit b of `words[w]` is cell x + 64w + b, alive where
/// SplitMix64's finaliser of (rowKey ^ (x + 64w + b)) + 0x9E3779B97F4A7C15, shifted
/// right 11, is below `threshold`; the last word's bits past `width` are 0. Eight cells
/// at a time where the CPU has AVX-512 (DQ, `tessera_cpu_has_avx512dq`); `_scalar` one
/// at a time (for tests).
int tessera_cpu_has_avx512dq(void);
void tessera_soup_row(uint64_t rowKey, int64_t x, size_t width, uint64_t threshold, uint64_t *words);
void tessera_soup_row_scalar(uint64_t rowKey, int64_t x, size_t width, uint64_t threshold, uint64_t *words);

/// What `tessera_step_tracked_avx2` reports for a 4-word column (256 cells), in the low
/// 16 bits of a report: whether a stepped word differs from the one it overwrote (the
/// generation before last, in a double-buffered board), and where: in the first or last
/// row of the call, in the column's first cell (bit 0 of its first word) or last (bit
/// 63 of its fourth), and at the corners those make; and whether any cell of the rows is
/// alive. Bits 32-63 of a changed column's report are the rows that changed, bit i for
/// row rowBegin + i.
enum {
    TESSERA_CHANGED = 1 << 0,
    TESSERA_ALIVE = 1 << 1,
    TESSERA_CHANGED_FIRST_ROW = 1 << 2,
    TESSERA_CHANGED_LAST_ROW = 1 << 3,
    TESSERA_CHANGED_FIRST_COLUMN = 1 << 4,
    TESSERA_CHANGED_LAST_COLUMN = 1 << 5,
    TESSERA_CHANGED_TOP_LEFT = 1 << 6,
    TESSERA_CHANGED_TOP_RIGHT = 1 << 7,
    TESSERA_CHANGED_BOTTOM_LEFT = 1 << 8,
    TESSERA_CHANGED_BOTTOM_RIGHT = 1 << 9,
};

/// As `tessera_step_rows_avx2` for at most 32 rows [rowBegin, rowEnd), stepping only
/// those whose bit in `rowMask` is set (bit i: row rowBegin + i; the others must already
/// hold their next state), and writes each 4-word column's report in `flags[column]`.
/// The same caveats: only where the CPU has AVX2.
int tessera_step_tracked_avx2(const uint64_t *src, uint64_t *dst, size_t stride,
                              size_t words, size_t rowBegin, size_t rowEnd, uint32_t rowMask,
                              const tessera_rule *rule, uint64_t *flags);

/// Four 8x8 leaves (bit 8r+c is the cell at column c, row r of a leaf) making a 16x16 square.
typedef struct { uint64_t nw, ne, sw, se; } tessera_leaves;

/// HashLife's base case: the 32x32 square made of sixteen leaves, in rows of four from
/// the top-left, stepped `generations` (1, 2, 4 or 8) generations under the rule (masks
/// as above, no B0), whose centre 16x16 (rows and columns 8-23) it returns. Portable C,
/// on every CPU.
tessera_leaves tessera_square_result(const uint64_t leaves[16], int generations, const tessera_rule *rule);

/// The same without AVX2 whatever the CPU, so tests can hold the two paths to each other.
tessera_leaves tessera_square_result_narrow(const uint64_t leaves[16], int generations, const tessera_rule *rule);

/// Tiles per chunk of the sparse plane's cell memory: a slot's two generations lie in
/// chunk slot / TESSERA_TILE_CHUNK, generation of parity p at 64 words times
/// 2 * (slot % TESSERA_TILE_CHUNK) + p.
enum { TESSERA_TILE_CHUNK = 64 };

static inline uint64_t *tessera_tile_cells(uint64_t *const *chunks, int32_t slot, int parity) {
    return chunks[slot / TESSERA_TILE_CHUNK] + ((size_t)(slot % TESSERA_TILE_CHUNK) * 2 + (size_t)parity) * 64;
}

/// What a step of the sparse plane changed in one tile: bit r of `rows` where row r
/// differs from the generation before last (any cell), of `west` where its column 0
/// does, of `east` where its column 63 does; valid for the tile's generation
/// `generation` only (a tile not stepped for it changed nothing).
typedef struct {
    uint64_t rows, west, east, generation;
} tessera_tile_changes;

/// One generation of the sparse plane's tiles `due[0..<count]` (slots). A tile is 64
/// words, word r its row r, bit c its column c; each steps from its generation of
/// `parity` and its neighbours' (`neighbours[9 * slot + k]`, the 3x3 in rows from the
/// north-west, k = 4 itself; -1 where none, read as `zero`) into its other generation,
/// which holds the generation before last and is overwritten. `reports[i]` says which
/// neighbours the step touched, bit k for neighbour k and bit 4 for anywhere: bits 0-8
/// where a cell differs from the one it overwrote (on the edge shared with neighbour k),
/// bits 16-24 where a cell is alive (as `tessera_tile_alive`). With `avx2` nonzero (only
/// where `tessera_cpu_has_avx2()` says so), the AVX2 loop, else the portable one.
/// `masks`, where not NULL, gives each slot the cells that may live (NULL: all), as on
/// a bounded grid's last tiles, whose cells beyond its edge are dead for ever.
/// `changes[2 * slot + p]` is what the step that made a slot's generation of parity p
/// changed: the steps read those of `generation` (the present one, of `parity`) to
/// skip rows that cannot change, and write those of `generation + 1`. Whoever sets a
/// tile's cells otherwise records every row of it as changed.
void tessera_tiles_step(const int32_t *due, size_t count, const int32_t *neighbours, uint64_t *const *chunks,
                        int parity, const uint64_t *zero, const uint64_t *const *masks, tessera_tile_changes *changes,
                        uint64_t generation, const tessera_rule *rule, int avx2, uint32_t *reports);

/// Where a tile's 64 words are alive, as bits 0-8 of a report of `tessera_tiles_step`.
uint32_t tessera_tile_alive(const uint64_t *cells);

/// Atomic access to plain memory, for HashLife's store, which the threads of one step
/// fill at once: Swift's Synchronization keeps atomics only as stored properties, not
/// at an address inside a buffer. On x86-64 the loads and stores are plain moves, the
/// exchange and the add locked instructions.
static inline uint32_t tessera_load_acquire_u32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void tessera_store_release_u32(uint32_t *p, uint32_t value) { __atomic_store_n(p, value, __ATOMIC_RELEASE); }
/// Whether `*p` was `expected` and is now `desired`; the exchange publishes what this
/// thread wrote before it.
static inline int tessera_exchange_u32(uint32_t *p, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}
static inline int64_t tessera_load_i64(const int64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void tessera_store_i64(int64_t *p, int64_t value) { __atomic_store_n(p, value, __ATOMIC_RELAXED); }
static inline int64_t tessera_fetch_add_i64(int64_t *p, int64_t value) { return __atomic_fetch_add(p, value, __ATOMIC_RELAXED); }
/// Starts loading the cache line at `p` (a hint: nothing waits, nothing faults).
static inline void tessera_prefetch(const void *p) { __builtin_prefetch(p); }

#endif
