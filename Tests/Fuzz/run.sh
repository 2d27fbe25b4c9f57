#!/usr/bin/env bash
# Fuzzes Tessera's readers of untrusted bytes with libFuzzer and AddressSanitizer: the
# wire decoder (every lane) and the RLE, .cells, Life 1.06, macrocell and MCell readers.
#
#   Tests/Fuzz/run.sh [RUNS] [TARGET…]    RUNS inputs per target (default 1000000)
#   Tests/Fuzz/run.sh --smoke             a short pass over every target (CI): 20000
#                                         inputs, or a minute, whichever ends first
#
# Seeds come from Tests/Fuzz/corpus/TARGET (read only); what the fuzzer learns goes to
# .build/fuzz-work/TARGET, and a crash, hang (10 s) or leak leaves its input in
# .build/fuzz-work/artifacts/ and fails this script. Copy such an input into
# Tests/Fuzz/regressions/TARGET: `swift test` replays it from then on. Inputs may
# declare any pattern size, so allocations are capped (TESSERA_MEMORY_LIMIT_MB=16), and
# Swift's backtracer is off: a trap goes straight to libFuzzer, which saves the input.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=1000000
# A smoke pass is bounded in time too: an input a reader holds millions of cells for
# takes it milliseconds under the sanitizers, and mutations of one stay that large.
limit=()
[ "${1:-}" = "--smoke" ] && { runs=20000; limit=(-max_total_time=60); shift; }
[[ "${1:-}" =~ ^[0-9]+$ ]] && { runs=$1; shift; }
targets=("$@")
((${#targets[@]})) || targets=(wire rle cells life106 macrocell mcell)

# libFuzzer brings its own main; SwiftPM names the executable's main too, and the one
# the linker keeps hands over to libFuzzer's driver either way (Sources/tessera-fuzz).
swift build --product tessera-fuzz --build-path .build/fuzz -c release \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DTESSERA_FUZZ -Xlinker --allow-multiple-definition
fuzzer=.build/fuzz/release/tessera-fuzz
work=.build/fuzz-work
mkdir -p "$work/artifacts"
status=0
for target in "${targets[@]}"; do
    mkdir -p "$work/$target"
    log="$work/$target.log"
    # Only the inputs that once broke a reader are kept in git, so a target may have none.
    regressions=()
    [ -d "Tests/Fuzz/regressions/$target" ] && regressions=("Tests/Fuzz/regressions/$target")
    if SWIFT_BACKTRACE=enable=no TESSERA_FUZZ_TARGET=$target TESSERA_MEMORY_LIMIT_MB=16 "$fuzzer" -runs="$runs" "${limit[@]}" -timeout=10 -rss_limit_mb=3072 \
        -artifact_prefix="$work/artifacts/$target-" -print_final_stats=1 \
        "$work/$target" "Tests/Fuzz/corpus/$target" "${regressions[@]}" >"$log" 2>&1; then
        done_line=$(grep -E '^#[0-9]+.*DONE' "$log" | tail -1 || true)
        echo "fuzz $target: ${done_line:-done} ($(grep -m1 -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$') inputs)"
    else
        echo "fuzz $target: FAILED; the input is in $work/artifacts/, the log in $log" >&2
        grep -E 'ERROR|SUMMARY|Fatal error|panic' "$log" | head -5 >&2
        status=1
    fi
done
exit $status
