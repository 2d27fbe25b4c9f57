import Testing
@testable import TesseraTiles

/// The per-block liveness of a 65536² plane: half a million blocks, one bit each.
@Suite struct BlockSetTests {
    @Test func membersAreTheBlocksSetInOrderAcrossWordBoundaries() {
        var set = BlockSet(count: 256 * 2048)
        for block in [524_287, 64, 0, 63, 65, 130_000] { set[block] = true }
        set[65] = false
        set[7] = false  // clearing what was never set changes nothing
        #expect(set.members == [0, 63, 64, 130_000, 524_287])
        #expect(set[63] && !set[65] && !set[62])
    }

    @Test func zeroedScratchReadsZeroEverywhere() {
        let scratch = UnsafeMutableBufferPointer<UInt32>.allocateZeroed(capacity: 1 << 20)
        defer { scratch.deallocateZeroed() }
        #expect(!scratch.contains { $0 != 0 })
    }
}
