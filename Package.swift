// swift-tools-version:6.0
import PackageDescription

// Data flows down the targets: the kernel and the engine step cells (core); patterns
// load and save boards, tiles own cells and trade halos; the wire carries messages
// between processes; the cluster coordinates workers; the viewer and export show what
// it computes; a run session puts them together; the command line parses flags.
//
// Linux only: the cluster wakes its ZeroMQ thread through an eventfd and finds its own
// binary through /proc, and no other platform is built or tested.
//
// The binary carries the Swift runtime and standard library, libstdc++, libgcc, libpng and
// libgif instead of loading them: a process then maps only the code it runs, and skips
// relocating shared libraries (docs/performance.md, "Process start and resident memory",
// has the figures and the command). The linker looks in deploy/static-link
// before the system's folders, and finds there scripts that read the libraries' archives
// (Debian: libstdc++-dev, libpng-dev, libgif-dev, zlib1g-dev) in place of their shared
// objects. libzmq, loaded only by runs that open a socket, brings its own.
let staticLink = String(#filePath.dropLast("Package.swift".count)) + "deploy/static-link"

// The modules that step cells are optimised in debug builds too, as the kernel is: the
// tests step millions of tiles, HashLife squares and rule-table cells through them; at
// -Onone those take most of the suite's CPU time, and a synchronous test holds one of the
// task pool's threads (one a core) as long as it computes (docs/testing.md).
let optimisedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "Tessera",
    products: [
        .executable(name: "tessera", targets: ["tessera"]),
        .library(name: "TesseraCore", targets: ["TesseraCore"]),
        .library(name: "TesseraPatterns", targets: ["TesseraPatterns"]),
        .library(name: "TesseraTiles", targets: ["TesseraTiles"]),
        .library(name: "TesseraHashLife", targets: ["TesseraHashLife"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The innermost SIMD loop only: AVX2 via a per-function target attribute,
        // chosen at run time, so one binary runs on every x86-64 and builds on aarch64.
        // Optimised in debug builds too: its intrinsics at -O0 run some twenty times
        // slower, and the tests step millions of tiles through it.
        .target(name: "CTesseraKernel", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        // CPU affinity, which needs _GNU_SOURCE.
        .target(name: "CTesseraSystem"),
        .target(name: "TesseraCore", dependencies: ["CTesseraKernel", "CTesseraSystem"], swiftSettings: optimisedInDebug),
        // zlib from the system (Debian: zlib1g-dev), for gzipped pattern files.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "TesseraPatterns", dependencies: ["CZlib", "TesseraCore"], swiftSettings: optimisedInDebug),
        // Golly's other engine, for patterns that repeat: one process, the unbounded plane.
        .target(name: "TesseraHashLife", dependencies: ["CTesseraKernel", "TesseraCore"], swiftSettings: optimisedInDebug),
        .target(name: "TesseraTiles", dependencies: ["TesseraCore"], swiftSettings: optimisedInDebug),
        // libzmq from the system (Debian: libzmq3-dev for the header, libzmq5 to run),
        // loaded on first use: a run that opens no socket never loads it.
        .target(name: "CZeroMQ", dependencies: ["CTesseraSystem"], linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "TesseraWire", dependencies: ["CZeroMQ", "TesseraCore"]),
        .target(name: "TesseraCluster", dependencies: ["CTesseraSystem", "TesseraCore", "TesseraPatterns", "TesseraTiles", "TesseraWire"]),
        .target(name: "TesseraViewer", dependencies: ["TesseraCore", "TesseraWire"]),
        // Frames as images, through the well-kept C libraries (Debian: libpng-dev, libgif-dev).
        .systemLibrary(name: "CPNG", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        .target(name: "TesseraExport", dependencies: ["TesseraCore", "TesseraCluster", "CPNG", "CGIF"]),
        .target(
            name: "TesseraRun",
            dependencies: ["TesseraCore", "TesseraPatterns", "TesseraTiles", "TesseraHashLife", "TesseraCluster", "TesseraViewer",
                           "TesseraExport"]
        ),
        // The benches: the kernel, scaling sweeps, the workload suite and Golly's corpus,
        // each side by side with bgolly where it runs the same thing.
        .target(name: "TesseraBench", dependencies: ["TesseraCore", "TesseraPatterns", "TesseraTiles", "TesseraCluster",
                                                     "TesseraWire", "TesseraRun"]),
        // The fuzzers' targets (underscored: for the fuzzers and tests, no API), and the
        // binary that is a libFuzzer target or a replayer (Tests/Fuzz/run.sh builds it).
        .target(name: "_TesseraFuzzTargets", dependencies: ["TesseraCore", "TesseraPatterns", "TesseraWire"]),
        .executableTarget(name: "tessera-fuzz", dependencies: ["_TesseraFuzzTargets"]),
        .executableTarget(
            name: "tessera",
            dependencies: [
                "TesseraCore", "TesseraPatterns", "TesseraWire", "TesseraCluster", "TesseraViewer", "TesseraRun", "TesseraBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The Swift runtime is linked in release builds only: the tests' binary, which
            // takes this target's flags, loads Foundation and Testing as shared libraries.
            // -static-stdlib alone leaves out what FoundationEssentials needs beside the
            // standard library (SwiftPM's --static-swift-stdlib names them too).
            linkerSettings: [
                .unsafeFlags(["-static-stdlib", "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-l_FoundationCShims",
                              "-Xlinker", "-lswiftSynchronization"], .when(configuration: .release)),
                .unsafeFlags(["-Xclang-linker", "-L\(staticLink)", "-Xclang-linker", "-static-libgcc"]),
                .unsafeFlags(["-use-ld=lld", "-Xlinker", "--symbol-ordering-file=\(staticLink)/small-run-functions.txt",
                              "-Xlinker", "--no-warn-symbol-ordering", "-Xlinker", "--no-export-dynamic"],
                             .when(configuration: .release)),
            ]
        ),
        .testTarget(name: "TesseraCoreTests", dependencies: ["TesseraCore", "CTesseraKernel", "CTesseraSystem"]),
        .testTarget(name: "TesseraPatternsTests", dependencies: ["TesseraPatterns"]),
        // Optimised as the modules it checks: its naive references step millions of cells.
        .testTarget(name: "TesseraTilesTests", dependencies: ["TesseraTiles", "TesseraHashLife", "TesseraPatterns", "CTesseraKernel"],
                    swiftSettings: optimisedInDebug),
        // With the fuzzers' corpora (Tests/Fuzz), replayed through the fuzz targets.
        .testTarget(name: "TesseraWireTests", dependencies: ["TesseraWire", "_TesseraFuzzTargets"]),
        // The coordinator's state machine and the run's library parts, with no process and no socket.
        .testTarget(name: "TesseraClusterTests", dependencies: ["TesseraCluster", "TesseraWire", "TesseraRun", "TesseraBench"]),
        .testTarget(name: "TesseraCLITests", dependencies: ["tessera", "TesseraPatterns", "TesseraWire", "TesseraRun", "CZeroMQ"]),
    ],
    swiftLanguageModes: [.v6]
)

// A small run touches a few thousand functions of the binary's 12 MiB of code, and holds
// each page it touches (CTesseraSystem's fault_around.c keeps the kernel from mapping the
// 64 KiB around each). In release builds every function sits in a section of its own,
// and the linker (lld) lays the ones a small run calls side by side at the front, so
// they share pages (deploy/static-link/small-run-functions.txt, written by
// deploy/static-link/order-functions.sh). Nothing loads symbols from the binary, so it
// exports none (the loader would search their table on each lookup). docs/performance.md,
// "Process start and resident memory", has what a small run holds and how to measure it.
// The list only orders code: a function missing from it still links, further back.
// A type's metadata comes from its accessor, not from its mangled name: the runtime
// demangles a name on first use and searches the binary's conformance records for its
// generic arguments' conformances, which cost a small run 0.15 ms.
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-function-sections", "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"],
                                                                        .when(configuration: .release))]
    target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-ffunction-sections"], .when(configuration: .release))]
}
