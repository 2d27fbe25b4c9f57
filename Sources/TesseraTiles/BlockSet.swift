#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A set of block indices, one bit each: a 65536² plane's half a million blocks take
/// 64 KiB, so a board that is mostly empty space costs little to clear, copy or scan.
struct BlockSet {
    private var words: [UInt64]

    /// An empty set for blocks `0..<count`.
    init(count: Int) {
        words = Array(repeating: 0, count: (count + 63) / 64)
    }

    subscript(block: Int) -> Bool {
        get { words[block >> 6] & (1 << UInt64(block & 63)) != 0 }
        set {
            let bit: UInt64 = 1 << UInt64(block & 63)
            if newValue { words[block >> 6] |= bit } else { words[block >> 6] &= ~bit }
        }
    }

    /// Whether no block of `blocks` is in the set.
    func isEmpty(in blocks: Range<Int>) -> Bool {
        var block = blocks.lowerBound
        while block < blocks.upperBound {
            let bit = block & 63, take = min(64 - bit, blocks.upperBound - block)
            let mask = take == 64 ? UInt64.max : (UInt64(1) << UInt64(take) - 1) << UInt64(bit)
            if words[block >> 6] & mask != 0 { return false }
            block += take
        }
        return true
    }

    /// The blocks in the set, in order: empty words are passed over 64 blocks at a time.
    var members: [Int] {
        var found: [Int] = []
        for (index, word) in words.enumerated() where word != 0 {
            var rest = word
            while rest != 0 {
                found.append(index << 6 | rest.trailingZeroBitCount)
                rest &= rest - 1
            }
        }
        return found
    }
}

extension UnsafeMutableBufferPointer where Element: FixedWidthInteger {
    /// Zeroed memory whose pages the kernel maps only when first written: calloc serves a
    /// large request with fresh anonymous pages, where allocate-then-initialize would
    /// write every one. A sparse pattern on a huge plane touches the pages of the blocks
    /// near it and no others. Give it back with `deallocateZeroed()`.
    static func allocateZeroed(capacity: Int) -> Self {
        let raw = calloc(Swift.max(capacity, 1), MemoryLayout<Element>.stride)!
        return Self(start: raw.bindMemory(to: Element.self, capacity: capacity), count: capacity)
    }

    func deallocateZeroed() { free(baseAddress) }
}
