import FoundationEssentials
import TesseraCore
import TesseraPatterns
import TesseraWire

/// What each fuzzer feeds its input to, also run by the tests over every corpus file.
/// Bad input must come back as a thrown error; anything that traps, hangs or breaks a
/// round trip is a bug. A round trip checks what was accepted: written out again and
/// read back, it must be what was read.
package enum FuzzTarget: String, CaseIterable, Sendable {
    case wire, rle, cells, life106, macrocell, mcell

    package func run(_ bytes: [UInt8]) {
        switch self {
        case .wire:
            for lane in Lane.allCases {
                guard let message = try? Wire.decode(bytes, on: lane) else { continue }
                let again = try? Wire.decode(Wire.encode(message), on: lane)
                precondition(again == message, "a \(message.kind) re-encoded reads back differently on \(lane)")
            }
        case .rle:
            roundTrip(try? RLE.parse(text(bytes)))
        case .cells:
            roundTrip(try? PlainText.parse(text(bytes)))
        case .life106:
            roundTrip(try? PCLife.parse(text(bytes)))
        case .macrocell:
            roundTrip(try? Macrocell.parse(text(bytes)).withStatesMade())
        case .mcell:
            roundTrip(try? MCell.parse(text(bytes)))
        }
    }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The cells of an accepted pattern, as RLE and back, are the same cells: whole, or
    /// in parts where the box is past what the RLE reader holds whole (an MCell file's
    /// few cells can span one). A pattern read with no bounded grid is written with none,
    /// as it was read: a plane the size of its box is a grid some rules refuse (Golly's
    /// Larger than Life grids hold at most 10^8 cells; a row of 1.78 million cells read
    /// under one came back refused).
    private func roundTrip(_ pattern: Pattern?) {
        guard let pattern, pattern.cells.width > 0, pattern.cells.height > 0 else { return }
        let shape = BoardShape(width: pattern.cells.width, height: pattern.cells.height,
                               topology: pattern.board == nil ? .infinite : .plane)
        let written = RLE.string(for: pattern.cells, shape: shape, rule: pattern.rule ?? .life, generation: pattern.generation)
        guard let again = try? RLE.parse(written).withStatesMade() else { preconditionFailure("a pattern written as RLE does not read back") }
        var cells = again.cells
        if again.hasParts {
            // Parts lie from the declared box's top-left.
            cells = BitGrid(width: shape.width, height: shape.height)
            for part in again.parts { cells.formUnion(part.cells, atX: part.left, y: part.top) }
        }
        precondition(cells == pattern.cells, "a pattern written as RLE reads back with other cells")
    }
}

/// The entry points of `tessera-fuzz`: libFuzzer's callback, and the replay of corpus
/// files without the sanitizers.
package enum FuzzEntry {
    /// The fuzzer's target, from TESSERA_FUZZ_TARGET: libFuzzer calls `one` as a C
    /// callback, which can capture nothing.
    private static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["TESSERA_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            fatalError("set TESSERA_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return target
    }()

    package static func one(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        selected.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }

    package static func replay(_ target: FuzzTarget, _ paths: [String]) {
        var count = 0
        for path in paths {
            for file in FuzzFiles.list(path) {
                target.run(FuzzFiles.bytes(file))
                count += 1
            }
        }
        print("fuzz-\(target.rawValue): \(count) inputs replayed, none failed")
    }
}
