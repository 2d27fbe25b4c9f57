#!/usr/bin/env bash
# Writes deploy/static-link/small-run-functions.txt: the functions a small run calls, in
# the order it first calls them, for the linker to lay side by side at the front of the
# binary's code (Package.swift). Run it after changes that move what a small run calls,
# then rebuild:
#
#     swift build -c release --static-swift-stdlib -Xlinker -no-pie
#     deploy/static-link/order-functions.sh            # needs valgrind and Golly's Patterns
#     swift build -c release --static-swift-stdlib -Xlinker -no-pie
#
# and compare `/usr/bin/time -f %M .build/release/tessera run FILE --generations 1000`
# before and after. A stale list costs only memory: what it misses links further back.
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:-.build/release/tessera}
patterns=/usr/share/golly/Patterns
command -v valgrind >/dev/null || { echo "order-functions.sh: valgrind is missing; install it (apt-get install valgrind)" >&2; exit 2; }
[ -d "$patterns" ] || { echo "order-functions.sh: $patterns is missing; install Golly (apt-get install golly)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind gives up on the binary's debug information; the symbols are all it needs.
strip --strip-debug -o "$work/tessera" "$binary"
for file in Life/Oscillators/p138.rle Life/Syntheses/109-still-lifes.rle Life/Methuselahs/acorn.lif \
    Life/Guns/infinite-Corderships-gun.rle.gz HashLife/catacryst.mc Non-Totalistic/horiship-guns.rle \
    Generations/Banner.mcl Larger-than-Life/Bosco.mcl HashLife/wolfram22.mc; do
    cp "$patterns/$file" "$work/"
done

n=0
profile() {
    n=$((n + 1))
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/calls.$n" "$work/tessera" "$@" \
        >/dev/null 2>"$work/valgrind.$n" || { echo "order-functions.sh: tessera $* failed:" >&2; tail -5 "$work/valgrind.$n" >&2; exit 2; }
}
profile --help
for file in p138.rle acorn.lif infinite-Corderships-gun.rle.gz catacryst.mc horiship-guns.rle Banner.mcl Bosco.mcl; do
    profile run "$work/$file" --generations 1000
done
profile run "$work/109-still-lifes.rle" --generations 1000 --output "$work/out.rle"
profile run "$work/p138.rle" --generations 100000
profile run "$work/wolfram22.mc" --generations 1048576 --output "$work/out.mc"

# Function names in the order they were first seen, kept where the binary defines them
# once: lld moves every local function of a listed name to the front, with the whole
# section it sits in, and a name such as Optional's value witness `$sSqwcp` is defined in
# the regex libraries' single 0.9 MB sections too.
nm --defined-only "$work/tessera" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort | uniq -u > "$work/defined"
cat "$work"/calls.* | sed -n 's/^c\{0,1\}fn=([0-9]*) //p' | awk '!seen[$0]++' \
    | grep -F -x -f "$work/defined" > deploy/static-link/small-run-functions.txt
echo "deploy/static-link/small-run-functions.txt: $(wc -l < deploy/static-link/small-run-functions.txt) functions"
