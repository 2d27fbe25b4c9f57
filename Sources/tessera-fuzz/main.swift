import FoundationEssentials
import Glibc
import _TesseraFuzzTargets

// Built by Tests/Fuzz/run.sh with -DTESSERA_FUZZ and -sanitize=fuzzer,address, this is a
// libFuzzer target for the reader TESSERA_FUZZ_TARGET names (wire, rle, cells, life106,
// macrocell), taking libFuzzer's flags. Built plainly, `tessera-fuzz TARGET FILE|FOLDER…`
// replays inputs without the sanitizers.
#if TESSERA_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { FuzzEntry.one(data, size) }

// SwiftPM names every executable's main itself, which clashes with libFuzzer's; so this
// main (whichever the linker keeps, the two do the same) hands over to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<Int32>,
               _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
               _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runDriver(&argc, &argv) { data, size in FuzzEntry.one(data, size) })
#else
let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
    let usage = "usage: tessera-fuzz TARGET FILE|FOLDER… (TARGET: \(names))\n"
    _ = usage.withCString { write(2, $0, strlen($0)) }
    exit(2)
}
FuzzEntry.replay(target, Array(arguments.dropFirst()))
#endif
