import TesseraCore

/// Which blocks of a region changed, so a generation steps only the blocks that can.
///
/// A block is 256 cells (four words, one AVX2 vector) wide and `blockRows` rows tall.
/// A block's cells at generation g+1 depend only on its 3×3 neighbourhood of blocks at
/// g, whatever the rule. With two buffers, the target of a step holds generation g−1;
/// so when no block of the neighbourhood changed between g−2 and g, the block's cells
/// at g+1 equal those at g−1, already in the target, and the step skips it. Still
/// lifes and period-2 oscillators (most of a settled soup) cost nothing.
///
/// The invariant: `changed` lists every block whose cells differ between the current
/// buffer and the generation before last (nil when that is unknown: every block then
/// counts as changed), with where in the block they lie, and the next buffer holds the
/// previous generation wherever it matters. The kernel reports changes against the
/// target's old words as it steps. A neighbour needs stepping only when the changes
/// touch the edge or corner it borders: a glider inside a block wakes no other. Within
/// a block only rows next to a changed row are stepped, as a mask of its 32 rows: a
/// stream of gliders a few rows apart leaves the rows between them alone.
final class BlockActivity {
    /// A changed block, where its changes lie (`Kernel.ColumnFlags`) and the rows that
    /// changed (bit i: the block's row i).
    struct Change {
        private let packed: UInt64
        let rows: UInt32
        init(block: Int, edges: Kernel.ColumnFlags, rows: UInt32) {
            packed = UInt64(block) << 16 | UInt64(edges.rawValue)
            self.rows = rows
        }
        var block: Int { Int(packed >> 16) }
        var edges: Kernel.ColumnFlags { Kernel.ColumnFlags(rawValue: UInt16(truncatingIfNeeded: packed)) }
        /// Changes anywhere in the block, as far as anyone knows.
        static func everywhere(_ block: Int) -> Change {
            Change(block: block, edges: Kernel.ColumnFlags(rawValue: 0xFFFF), rows: .max)
        }
    }

    /// Rows of a block: at most 32, since the rows a block wants stepped are a `UInt32` mask.
    static let blockRows = 32

    /// Blocks across and down.
    let columns: Int, rows: Int
    private let height: Int
    /// Blocks that changed at the latest generation; nil: unknown, all.
    private(set) var changed: [Change]?
    /// The blocks that hold a live cell, in the current and the next buffer; nil: unknown.
    private var aliveCurrent: BlockSet?, aliveNext: BlockSet?
    /// Candidate marks, by generation, so a block is listed once. Raw buffers: the
    /// stepper's inner loops touch them for every candidate, every generation.
    private let stamp: UnsafeMutableBufferPointer<UInt32>
    private var epoch: UInt32 = 0
    /// The rows of each candidate that can change (bit i: the block's row i): valid
    /// where `stamp` holds this generation's epoch.
    private let wanted: UnsafeMutableBufferPointer<UInt32>
    private let flags: UnsafeMutableBufferPointer<UInt64>
    /// The candidates of the generation being stepped, and the changes it finds: kept
    /// between generations for their capacity.
    private var candidates: [Int32] = []
    private var found: [Change] = []
    /// Blocks stepped since the tile was made, and rows of them: what skipping saves shows here.
    private(set) var stepped = 0
    private(set) var steppedRows = 0
    /// Whether the next buffer holds no true predecessor of the current one (new cells
    /// were written): the next step's comparisons with it say nothing for a block that
    /// held live cells, so each such block counts as changed. Otherwise a cell that dies
    /// at once would compare equal to the empty buffer, its block would be skipped a
    /// generation later, and the written cell would come back from that buffer. (A block
    /// empty before and after may stay unchanged: its next state is empty whatever.)
    private var noPredecessor = false

    init(width: Int, height: Int) {
        columns = (width + 255) / 256
        rows = (height + Self.blockRows - 1) / Self.blockRows
        self.height = height
        stamp = .allocateZeroed(capacity: columns * rows)
        wanted = .allocateZeroed(capacity: columns * rows)
        flags = .allocate(capacity: columns)
        flags.initialize(repeating: 0)
        aliveCurrent = BlockSet(count: columns * rows)
        aliveNext = aliveCurrent
        changed = []
    }

    deinit {
        stamp.deallocateZeroed()
        wanted.deallocateZeroed()
        flags.deallocate()
    }

    var blockCount: Int { columns * rows }

    /// The blocks `box` (buffer coordinates) touches: columns and rows of blocks.
    func blocks(in box: Box) -> (columns: Range<Int>, rows: Range<Int>) {
        let c0 = max(0, box.x / 256), c1 = min(columns, (box.x + box.width + 255) / 256)
        let r0 = max(0, box.y / Self.blockRows), r1 = min(rows, (box.y + box.height + Self.blockRows - 1) / Self.blockRows)
        return (c0..<max(c0, c1), r0..<max(r0, r1))
    }

    /// The cells of a block, in buffer coordinates.
    func box(of block: Int) -> Box {
        Box(x: block % columns * 256, y: block / columns * Self.blockRows, width: 256, height: Self.blockRows)
    }

    /// Forgets everything: every block counts as changed, and liveness is unknown.
    func invalidate() {
        changed = nil
        aliveCurrent = nil
        aliveNext = nil
    }

    /// After new cells were written into the current buffer (and the next one cleared):
    /// the blocks in `boxes` that hold live cells are the changed ones, as if the board
    /// had been empty before.
    func reset(liveIn boxes: [Box], of region: Region) {
        var alive = BlockSet(count: blockCount)
        var list: [Change] = []
        for box in boxes {
            let (cs, rs) = blocks(in: box)
            for r in rs {
                for c in cs where !alive[r * columns + c] {
                    let b = self.box(of: r * columns + c)
                    if region.current.population(x: b.x, y: b.y, width: b.width, height: min(b.height, height - b.y)) > 0 {
                        alive[r * columns + c] = true
                        list.append(.everywhere(r * columns + c))
                    }
                }
            }
        }
        changed = list
        aliveCurrent = alive
        aliveNext = BlockSet(count: blockCount)
        noPredecessor = true
    }

    /// Adds the blocks `box` touches to those that changed (new cells written there).
    func markChanged(_ box: Box) {
        guard changed != nil else { return }
        let (cs, rs) = blocks(in: box)
        for r in rs {
            for c in cs { changed!.append(.everywhere(r * columns + c)) }
        }
    }

    /// Steps `region` one generation, computing rows `valid` of the blocks that can
    /// change, keeping the cells of `dead` dead, and swaps its buffers.
    func step(_ region: Region, rows valid: Range<Int>, rule: Rule, using kernel: Kernel.Implementation, dead: [Box]) {
        let everything = changed == nil
        if !everything { gatherCandidates() }
        // The lists and counts this loop fills are taken out into locals: each access to
        // a class's stored property is checked for exclusivity at run time, and that was
        // 6% of a settling soup's time.
        var found = self.found, stepped = 0, steppedRows = 0
        let noPredecessor = self.noPredecessor
        self.found = []
        found.removeAll(keepingCapacity: true)
        // Taken out, so it is changed in place rather than copied.
        var aliveTarget = everything ? BlockSet(count: blockCount) : aliveNext
        aliveNext = nil
        let aliveBefore = noPredecessor ? aliveCurrent : nil
        let stepRows = valid.clamped(to: 1..<(height - 1))
        let (source, target) = (region.current, region.next)
        /// Steps rows `wanted` (bit i: the block row's row i) of the blocks `run` of block row `row`.
        func stepRun(row: Int, columns run: Range<Int>, rows wanted: UInt32) {
            // Just after new cells were written the target is no predecessor: rows left out
            // would come from it, so every row is stepped.
            let wanted = noPredecessor ? UInt32.max : wanted
            let blockRows = (row * Self.blockRows)..<min(height, (row + 1) * Self.blockRows)
            let computed = blockRows.clamped(to: stepRows)
            guard !computed.isEmpty else { return }
            let offset = computed.lowerBound - blockRows.lowerBound
            let mask = wanted >> UInt32(offset)
            guard mask != 0 else { return }
            Kernel.stepTracked(source, into: target, rows: computed, mask: mask, columns: run, rule: rule, using: kernel,
                               flags: flags.baseAddress!)
            if !dead.isEmpty {
                let area = Box(x: run.lowerBound * 256, y: computed.lowerBound, width: run.count * 256, height: computed.count)
                for box in dead {
                    if let part = box.intersection(area) { region.clear(part, in: target) }
                }
            }
            // The kernel's first and last rows are the block's only when the step covered them.
            var unstepped: Kernel.ColumnFlags = []
            if computed.lowerBound != blockRows.lowerBound { unstepped.formUnion([.firstRow, .topLeft, .topRight]) }
            if computed.upperBound != blockRows.upperBound { unstepped.formUnion([.lastRow, .bottomLeft, .bottomRight]) }
            var wrote = false
            for c in run {
                let block = row * columns + c, report = Kernel.ColumnReport(rawValue: flags[c - run.lowerBound])
                let flag = report.flags
                if noPredecessor && aliveBefore?[block] != false {
                    found.append(Change(block: block, edges: Change.everywhere(block).edges.subtracting(unstepped), rows: .max))
                } else if flag.contains(.changed) {
                    wrote = true
                    found.append(Change(block: block, edges: flag.subtracting(unstepped), rows: report.changedRows << UInt32(offset)))
                }
                // The kernel looked at every row of `computed`, stepped or not; rows of the
                // block outside it are past the valid rows, whose liveness does not count.
                if aliveTarget != nil { aliveTarget![block] = flag.contains(.alive) }
            }
            if wrote && !everything {
                // Where cells change, they may spread a block row either way by the next
                // step: that much of both buffers is made memory before it is read (see
                // `CellBuffer.prepare`). Blocks that only ever read empty cells, such as
                // a long quiet halo, stay unmapped.
                let near = max(0, blockRows.lowerBound - Self.blockRows)..<min(height, blockRows.upperBound + Self.blockRows)
                source.prepare(rows: near)
                target.prepare(rows: near)
            }
            stepped += run.count
            steppedRows += run.count * (mask & (computed.count == 32 ? .max : (1 << UInt32(computed.count)) - 1)).nonzeroBitCount
        }
        if everything {
            for row in 0..<rows { stepRun(row: row, columns: 0..<columns, rows: .max) }
        } else {
            // Runs of consecutive candidates within a block row that want the same rows, one kernel call each.
            let (candidates, wanted) = (self.candidates, self.wanted)
            var i = 0
            while i < candidates.count {
                let first = Int(candidates[i]), row = first / columns, rows = wanted[first]
                var end = first + 1
                i += 1
                while i < candidates.count, Int(candidates[i]) == end, end % columns != 0, wanted[end] == rows {
                    end += 1
                    i += 1
                }
                stepRun(row: row, columns: (first % columns)..<((end - 1) % columns + 1), rows: rows)
            }
        }
        region.swapBuffers()
        self.noPredecessor = false
        self.stepped += stepped
        self.steppedRows += steppedRows
        // The old list becomes next generation's scratch, capacity and all.
        if everything {
            changed = found
        } else {
            self.found = changed!
            changed = found
        }
        // A block stepped over only some of its rows keeps others from two generations
        // ago: still the right liveness for the rows that count (the interior).
        aliveNext = aliveCurrent
        aliveCurrent = aliveTarget
    }

    /// Steps `region` `generations` generations when no block changed at the latest:
    /// its cells equal those of the generation before last, in the next buffer, so
    /// every generation from here is a swap of the buffers (and of what is known of
    /// their liveness), and only the count's parity matters.
    func stepUnchanged(_ region: Region, generations: Int) {
        precondition(changed?.isEmpty == true, "only a board where nothing changed steps without stepping")
        noPredecessor = false
        guard generations % 2 == 1 else { return }
        region.swapBuffers()
        swap(&aliveCurrent, &aliveNext)
    }

    /// The blocks to step: those that changed and the neighbours their changes border,
    /// sorted, each once, with the rows of each that can change (`wanted`): a cell can
    /// change only next to a change.
    private func gatherCandidates() {
        epoch &+= 1
        // Filled in a local (see `step`), then put back.
        var candidates = self.candidates
        self.candidates = []
        candidates.removeAll(keepingCapacity: true)
        defer { self.candidates = candidates }
        let (rows, columns, epoch, stamp, wanted) = (self.rows, self.columns, self.epoch, self.stamp, self.wanted)
        let (top, bottom): (UInt32, UInt32) = (1, 1 << UInt32(Self.blockRows - 1))
        func add(_ r: Int, _ c: Int, _ wanting: UInt32) {
            guard r >= 0, r < rows, c >= 0, c < columns else { return }
            let block = r * columns + c
            if stamp[block] != epoch {
                stamp[block] = epoch
                candidates.append(Int32(block))
                wanted[block] = wanting
            } else {
                wanted[block] |= wanting
            }
        }
        for change in changed! {
            let r = change.block / columns, c = change.block % columns, edges = change.edges
            // A row can change only next to a changed row (shifts drop rows past the block's ends).
            let near = change.rows | change.rows << 1 | change.rows >> 1
            add(r, c, near)
            if edges.contains(.firstRow) { add(r - 1, c, bottom) }
            if edges.contains(.lastRow) { add(r + 1, c, top) }
            if edges.contains(.firstColumn) { add(r, c - 1, near) }
            if edges.contains(.lastColumn) { add(r, c + 1, near) }
            if edges.contains(.topLeft) { add(r - 1, c - 1, bottom) }
            if edges.contains(.topRight) { add(r - 1, c + 1, bottom) }
            if edges.contains(.bottomLeft) { add(r + 1, c - 1, top) }
            if edges.contains(.bottomRight) { add(r + 1, c + 1, top) }
        }
        candidates.sort()
    }

    /// Learns which blocks of each buffer hold live cells where that is unknown (after a
    /// round stepped without tracking): one look at every block, once.
    func learnLiveness(of region: Region) {
        func scan(_ buffer: CellBuffer) -> BlockSet {
            var alive = BlockSet(count: blockCount)
            for block in 0..<blockCount {
                let b = box(of: block)
                alive[block] = buffer.population(x: b.x, y: b.y, width: b.width, height: min(b.height, height - b.y)) > 0
            }
            return alive
        }
        if aliveCurrent == nil { aliveCurrent = scan(region.current) }
        if aliveNext == nil { aliveNext = scan(region.next) }
    }

    /// Live cells in `box` of the current buffer, counting only blocks known to hold any.
    func population(of region: Region, in box: Box) -> Int {
        aliveParts(of: box).reduce(0) { $0 + region.current.population(x: $1.x, y: $1.y, width: $1.width, height: $1.height) }
    }

    /// The parts of `box` in blocks of the current buffer that may hold a live cell, a
    /// row of blocks at a time: `box` itself when nothing is known.
    func aliveParts(of box: Box) -> [Box] {
        guard let alive = aliveCurrent else { return [box] }
        var parts: [Box] = []
        let (cs, rs) = blocks(in: box)
        for r in rs {
            for c in cs where alive[r * columns + c] {
                if let part = self.box(of: r * columns + c).intersection(box) { parts.append(part) }
            }
        }
        return parts
    }

    /// Whether `box` of the current buffer (or the next) may hold a live cell: false only
    /// when every block it touches is known to be empty there.
    func mayBeAlive(_ box: Box, inNext: Bool = false) -> Bool {
        guard let alive = inNext ? aliveNext : aliveCurrent else { return true }
        let (cs, rs) = blocks(in: box)
        return rs.contains { r in cs.contains { alive[r * columns + $0] } }
    }

    /// Gives back the memory of the frames of each buffer where no block holds a live
    /// cell (see `CellBuffer.releaseDeadFrames`, which also checks every word: a halo
    /// strip writes cells these sets do not know of).
    func releaseDeadFrames(of region: Region) {
        for (buffer, alive) in [(region.current, aliveCurrent), (region.next, aliveNext)] {
            guard let alive else { continue }
            buffer.releaseDeadFrames { rows in
                let first = rows.lowerBound / Self.blockRows, end = min(self.rows, (rows.upperBound + Self.blockRows - 1) / Self.blockRows)
                return alive.isEmpty(in: first * columns..<max(first, end) * columns)
            }
        }
    }

    /// The blocks known to hold live cells in the current buffer; nil when unknown.
    var aliveBlocks: [Int]? {
        aliveCurrent?.members
    }
}
