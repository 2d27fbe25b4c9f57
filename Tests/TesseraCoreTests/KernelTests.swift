import Testing
@testable import TesseraCore
import CTesseraKernel

@Suite struct KernelTests {
    /// The 512-bit step (step_avx512.c) steps as the portable one does: rows whose words
    /// are a multiple of 8 and rows with 4 left over (those go through the 256-bit step),
    /// more rows than a band, counts 0 and 8 (its minterms test the count's fourth bit),
    /// on soups sparse and dense. Where the CPU has no AVX-512 there is nothing to test.
    @Test func theAVX512StepIsThePortableStep() throws {
        var generator = SplitMix64(seed: 512)
        let rules = try ["B3/S23", "B36/S23", "B3678/S34678", "B1357/S02468", "B12345678/S8", "B8/S012345678", "B2/S"]
            .map { try Rule(parsing: $0) }
        for width in [200, 512, 700, 1100] {
            let height = 70
            for rule in rules {
                for dense in [false, true] {
                    let source = CellBuffer(width: width, height: height)
                    let viaPortable = CellBuffer(width: width, height: height), via512 = CellBuffer(width: width, height: height)
                    for y in 0..<height {
                        for word in 0..<source.rowWords {
                            source.row(y)[word] = dense ? generator.next() | generator.next() | generator.next() : generator.next()
                        }
                    }
                    Kernel.step(source, into: viaPortable, rows: 1..<height - 1, rule: rule, using: .portable)
                    let stepped = rule.withKernelRule {
                        tessera_step_rows_avx512(source.row(0), via512.row(0), source.stride, source.rowWords, 1, height - 1, $0)
                    }
                    guard stepped != 0 else { return }
                    let same = (1..<height - 1).allSatisfy { y in (0..<source.rowWords).allSatisfy { via512.row(y)[$0] == viaPortable.row(y)[$0] } }
                    #expect(same, "\(rule) \(width) wide, \(dense ? "dense" : "half full")")
                }
            }
        }
    }
}
