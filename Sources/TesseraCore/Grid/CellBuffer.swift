#if canImport(Glibc)
import Glibc
#endif

/// A mutable bit grid laid out for the step kernel: rows padded to whole 256-bit
/// vectors, 32-byte aligned, with zero guard words before every row and after the last,
/// so the kernel reads across row ends without branches.
///
/// Its memory is an anonymous mapping: pages nobody wrote read as zeros and take no
/// memory, so a huge, mostly empty board costs what is alive on it, and `clearAll()`
/// hands every page back at once instead of writing zeros.
///
/// Owned by one tile and never shared; it is deliberately not `Sendable`.
public final class CellBuffer {
    public let width: Int
    public let height: Int
    /// Words stepped per row (a multiple of 4, covering `width`).
    public let rowWords: Int
    /// Distance between rows in words: four guard words, then `rowWords`.
    public let stride: Int
    static let guardWords = 4
    private let storage: UnsafeMutableRawPointer
    private let byteCount: Int
    /// Which frames of the buffer were made writable memory already (see `prepare(rows:)`),
    /// a bit each. A raw buffer: the stepper asks for every block row it changes.
    private let preparedFrames: UnsafeMutableBufferPointer<UInt64>
    /// Bytes a frame spans, as a power of two: one huge page in a buffer of huge pages,
    /// else 64 KiB. (A shift, because a division by a stored size shows in a sparse run.)
    private let frameShift: Int

    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0)
        self.width = width
        self.height = height
        rowWords = (width + 255) / 256 * 4
        stride = rowWords + Self.guardWords
        byteCount = (height * stride + Self.guardWords) * 8
        guard let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              mapped != MAP_FAILED else {
            // Callers check the memory budget first; a failure here is the system's.
            fatalError("cannot map \(byteCount) bytes for a \(width)x\(height) cell buffer: \(Files.systemReason())")
        }
        storage = mapped
        // Huge pages for big buffers: a block of 32 rows touches one 4 KiB page per row
        // once rows are 4 KiB or longer, so a glider crossing a 65536-wide board faults
        // in thousands of them; a 2 MiB page spans hundreds of rows (acorn on a 65536²
        // plane faults a seventh as often). From 2 MiB, a buffer at least one huge page
        // long: zeroing one costs about as much as a hundred faults of small pages, and a
        // board of a few million cells with activity spread over it (Golly's
        // 7-in-a-row-Cordership-V-gun) faults thousands.
        // Smaller buffers keep 4 KiB pages, made memory 64 KiB at a time: a window of
        // the unbounded plane is remade as the pattern moves, and zeroing whole huge
        // pages for each small one cost more than it saved.
        if byteCount >= 2 << 20 {
            madvise(mapped, byteCount, MADV_HUGEPAGE)
            frameShift = 21
        } else {
            frameShift = 16
        }
        preparedFrames = .allocate(capacity: ((byteCount >> frameShift) + 2 + 63) / 64)
        preparedFrames.initialize(repeating: 0)
    }

    /// Makes rows `rows` writable memory before the stepper reads or writes them, a frame
    /// at a time. A page whose first touch is a read maps the kernel's shared zero page,
    /// and the write after it is a second fault that copies it, and flushes the TLB of
    /// every CPU the process ran on. In a buffer of huge pages it is worse: the write
    /// splits the frame into 4 KiB pages, a fault each. The stepper reads the rows next
    /// to activity before writing them, so which frames came out huge depended on where
    /// their boundaries fell, that is on the address the mapping got: acorn on a 16384²
    /// plane took 1,170 to 3,190 page faults and 8 to 35 ms of stepping from run to run.
    public func prepare(rows: Range<Int>) {
        guard !rows.isEmpty else { return }
        let base = Int(bitPattern: storage)
        let first = (base + rows.lowerBound * stride * 8) >> frameShift
        let last = (base + (rows.upperBound * stride + Self.guardWords) * 8 - 1) >> frameShift
        let origin = base >> frameShift
        for frame in first...last {
            let (word, bit) = ((frame - origin) >> 6, UInt64(1) << UInt64((frame - origin) & 63))
            guard preparedFrames[word] & bit == 0 else { continue }
            preparedFrames[word] |= bit
            // Clipped to the mapping; a kernel without MADV_POPULATE_WRITE (before 5.14)
            // says EINVAL, and the pages then come as they did before.
            let start = max(base, frame << frameShift), end = min(base + byteCount, (frame + 1) << frameShift)
            madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_POPULATE_WRITE)
        }
    }

    /// Gives back the memory of each prepared frame whose rows `isDead` calls free of
    /// live cells (given the rows a frame overlaps) and whose words are all zero: a
    /// glider's wake stops holding memory, so a long run keeps what is alive now, not
    /// every row activity ever crossed. Given back, a frame reads as zeros, as its cells
    /// were, and is made memory again when activity returns (`prepare(rows:)`).
    /// Buffers of small pages (under 8 MiB) keep theirs: they hold little, and frames
    /// of 64 KiB given back and made again as activity passes near cost more than they
    /// save (acorn on the unbounded plane runs slower so).
    public func releaseDeadFrames(where isDead: (Range<Int>) -> Bool) {
        guard frameShift == 21 else { return }
        let base = Int(bitPattern: storage), origin = base >> frameShift, rowBytes = stride * 8
        for (index, word) in preparedFrames.enumerated() where word != 0 {
            var rest = word
            while rest != 0 {
                let bit = rest.trailingZeroBitCount
                rest &= rest - 1
                let frame = origin + (index << 6 | bit)
                let start = max(base, frame << frameShift), end = min(base + byteCount, (frame + 1) << frameShift)
                let rows = (start - base) / rowBytes..<min(height, (end - base + rowBytes - 1) / rowBytes)
                guard isDead(rows) else { continue }
                let words = UnsafeBufferPointer(start: UnsafePointer<UInt64>(bitPattern: start), count: (end - start) / 8)
                guard !words.contains(where: { $0 != 0 }) else { continue }
                madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_DONTNEED)
                preparedFrames[index] &= ~(UInt64(1) << UInt64(bit))
            }
        }
    }

    deinit {
        munmap(storage, byteCount)
        preparedFrames.deallocate()
    }

    /// Sets every cell to dead by giving the pages back; they read as zeros again.
    public func clearAll() {
        madvise(storage, byteCount, MADV_DONTNEED)
        preparedFrames.update(repeating: 0)
    }

    /// Bytes of the buffer backed by memory of this process's own: pages that were
    /// written. Pages never touched, and pages only read (the kernel maps its shared zero
    /// page there), do not count. Read from /proc/self/pagemap (present and exclusively
    /// mapped); nil where that cannot be read.
    public var residentBytes: Int? {
        guard let entries = PageMap.entries(from: storage, byteCount: byteCount) else { return nil }
        let own = PageMap.present | PageMap.exclusive
        return entries.reduce(0) { $0 + ($1 & own == own ? PageMap.pageSize : 0) }
    }

    /// Bytes a buffer of this size occupies, for checking memory before allocating.
    public static func byteCount(width: Int, height: Int) -> Int {
        (height * ((width + 255) / 256 * 4 + guardWords) + guardWords) * 8
    }

    /// The first word of row `y` (its guard word is at index -1).
    @inline(__always)
    package func row(_ y: Int) -> UnsafeMutablePointer<UInt64> {
        storage.assumingMemoryBound(to: UInt64.self) + y * stride + Self.guardWords
    }

    /// Makes rows `rows` wrap across words `words`: the word before them holds their last,
    /// the word after them their first, which is what the kernel reads as the cells west
    /// of the first and east of the last (a torus one tile across, `Region.step`).
    package func wrapAcross(rows: Range<Int>, words: Range<Int>) {
        precondition(words.lowerBound >= 1 && words.upperBound < rowWords && !words.isEmpty)
        for y in rows {
            let p = row(y)
            p[words.lowerBound - 1] = p[words.upperBound - 1]
            p[words.upperBound] = p[words.lowerBound]
        }
    }

    public subscript(x: Int, y: Int) -> Bool {
        get { row(y)[x >> 6] >> UInt64(x & 63) & 1 == 1 }
        set {
            let bit = UInt64(1) << UInt64(x & 63)
            if newValue { row(y)[x >> 6] |= bit } else { row(y)[x >> 6] &= ~bit }
        }
    }

    /// Copies the `grid.width`×`grid.height` cells of `grid` so its top-left lands at (x, y).
    public func insert(_ grid: BitGrid, atX x: Int, y: Int) {
        grid.words.withUnsafeBufferPointer { words in
            for r in 0..<grid.height {
                BitCopy.copy(from: words.baseAddress! + r * grid.wordsPerRow, bit: 0,
                             to: row(y + r), bit: x, count: grid.width)
            }
        }
    }

    /// The `width`×`height` rectangle whose top-left is (x, y), as a value.
    public func extract(x: Int, y: Int, width: Int, height: Int) -> BitGrid {
        let perRow = (width + 63) / 64
        var words = [UInt64](repeating: 0, count: perRow * height)
        words.withUnsafeMutableBufferPointer { out in
            for r in 0..<height {
                BitCopy.copy(from: row(y + r), bit: x, to: out.baseAddress! + r * perRow, bit: 0, count: width)
            }
        }
        return BitGrid(width: width, height: height, words: words)
    }

    /// Sets every cell of the rectangle to dead.
    public func clear(x: Int, y: Int, width: Int, height: Int) {
        guard width > 0 else { return }
        guard x >> 6 == (x + width - 1) >> 6 else {
            for r in y..<(y + height) { BitCopy.clear(row(r), bit: x, count: width) }
            return
        }
        // Within one word, as a plane's edge column beyond its east or west side is each
        // generation: one mask down the rows.
        let keep = ~BitCopy.bits(from: x & 63, to: (x & 63) + width)
        var word = row(y) + x >> 6
        for _ in 0..<height {
            if word.pointee & ~keep != 0 { word.pointee &= keep }
            word += stride
        }
    }

    /// Live cells in the rectangle.
    public func population(x: Int, y: Int, width: Int, height: Int) -> Int {
        var total = 0
        for r in y..<(y + height) {
            let p = row(r)
            var done = 0
            while done < width {
                let n = min(64, width - done)
                total += BitCopy.read(p, bit: x + done, count: n).nonzeroBitCount
                done += n
            }
        }
        return total
    }

    /// The smallest rectangle holding every live cell of the `width`×`height` rectangle
    /// at (x, y), or nil when none is alive.
    public func liveBounds(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        BitCopy.liveBounds(x: x, width: width, rows: y..<(y + height)) { UnsafePointer(row($0)) }
    }
}
