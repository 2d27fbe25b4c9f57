// swift-tools-version:6.0
import PackageDescription

// Data flows top to bottom: the C kernel and the Swift engine step cells, patterns
// load and save boards, tiles own cells and trade halos, the CLI drives it all.
let package = Package(
    name: "Tessera",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "tessera", targets: ["tessera"]),
        .library(name: "TesseraCore", targets: ["TesseraCore"]),
        .library(name: "TesseraPatterns", targets: ["TesseraPatterns"]),
        .library(name: "TesseraTiles", targets: ["TesseraTiles"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The innermost SIMD loop only: AVX2 via a per-function target attribute,
        // chosen at run time, so one binary runs on every x86-64 and builds on aarch64.
        .target(name: "CTesseraKernel"),
        .target(name: "TesseraCore", dependencies: ["CTesseraKernel"]),
        .target(name: "TesseraPatterns", dependencies: ["TesseraCore"]),
        .target(name: "TesseraTiles", dependencies: ["TesseraCore"]),
        // libzmq from the system (Debian: libzmq3-dev). No pkgConfig: Debian's libzmq.pc
        // adds krb5 include flags that SwiftPM refuses with a warning on every build.
        .systemLibrary(name: "CZeroMQ", providers: [.apt(["libzmq3-dev"])]),
        .target(name: "TesseraWire", dependencies: ["CZeroMQ", "TesseraCore", "TesseraTiles"]),
        .target(name: "TesseraCluster", dependencies: ["TesseraCore", "TesseraTiles", "TesseraWire"]),
        .target(name: "TesseraViewer", dependencies: ["TesseraCore", "TesseraTiles", "TesseraWire"]),
        // Frames as images, through the well-kept C libraries (Debian: libpng-dev, libgif-dev).
        .systemLibrary(name: "CPNG", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        .target(name: "TesseraExport", dependencies: ["TesseraCore", "CPNG", "CGIF"]),
        .executableTarget(
            name: "tessera",
            dependencies: [
                "TesseraCore", "TesseraPatterns", "TesseraTiles", "TesseraCluster", "TesseraViewer", "TesseraExport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "TesseraCoreTests", dependencies: ["TesseraCore"]),
        .testTarget(name: "TesseraPatternsTests", dependencies: ["TesseraPatterns"]),
        .testTarget(name: "TesseraTilesTests", dependencies: ["TesseraTiles", "TesseraPatterns"]),
        .testTarget(name: "TesseraWireTests", dependencies: ["TesseraWire"]),
        .testTarget(name: "TesseraCLITests", dependencies: ["tessera", "TesseraPatterns", "TesseraTiles", "TesseraWire", "CZeroMQ"]),
    ],
    swiftLanguageModes: [.v6]
)
