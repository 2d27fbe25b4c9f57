import Testing
@testable import TesseraCore
import CTesseraKernel

@Suite struct BitGridTests {
    @Test func copyAtBitOffsetsKeepsEveryCell() {
        var source = BitGrid(width: 150, height: 3)
        for x in stride(from: 0, to: 150, by: 7) { source[x, 1] = true }
        source[149, 2] = true
        for offset in [0, 1, 63, 64, 65, 130] {
            var target = BitGrid(width: 300, height: 5)
            source.copy(into: &target, atX: offset, y: 1)
            #expect(target.population == source.population)
            #expect(target.cropped(x: offset, y: 1, width: 150, height: 3) == source)
        }
    }

    /// A grid's cells under a mask set as another grid has them (or dead), at offsets
    /// aligned and not, partly past every edge, against one cell at a time.
    @Test func overwriteUnderAMaskMatchesCellByCell() {
        var generator = SplitMix64(seed: 13)
        func random(_ width: Int, _ height: Int) -> BitGrid {
            var grid = BitGrid(width: width, height: height)
            for y in 0..<height { for x in 0..<width where generator.next() % 2 == 0 { grid[x, y] = true } }
            return grid
        }
        for (width, height) in [(70, 5), (130, 4), (64, 3)] {
            for (x, y) in [(0, 0), (1, 1), (63, 0), (64, 2), (-5, -1), (100, 2), (-70, 0), (200, 0)] {
                let target = random(150, 6), mask = random(width, height), values = random(width, height)
                for cells in [values, nil] {
                    var fast = target
                    fast.overwrite(cells, under: mask, atX: x, y: y)
                    var slow = target
                    for row in 0..<height where row + y >= 0 && row + y < 6 {
                        for column in 0..<width where column + x >= 0 && column + x < 150 && mask[column, row] {
                            slow[column + x, row + y] = cells?[column, row] ?? false
                        }
                    }
                    #expect(fast == slow, "\(width)x\(height) at (\(x), \(y)), \(cells == nil ? "dead" : "cells")")
                }
            }
        }
    }

    /// Every path of BitCopy (word-aligned both sides, target aligned, neither) against
    /// one bit at a time, with the target's other bits kept.
    @Test func bitCopyMatchesCopyingBitByBit() {
        var generator = SplitMix64(seed: 7)
        let source = (0..<6).map { _ in generator.next() }
        for sourceBit in [0, 1, 31, 32, 63, 64, 65, 128] {
            for targetBit in [0, 1, 32, 63, 64, 65, 128] {
                for count in [1, 63, 64, 65, 128, 191] where sourceBit + count <= 5 * 64 {
                    let before = (0..<6).map { _ in generator.next() }
                    var fast = before, slow = before
                    fast.withUnsafeMutableBufferPointer { t in
                        source.withUnsafeBufferPointer { BitCopy.copy(from: $0.baseAddress!, bit: sourceBit, to: t.baseAddress!, bit: targetBit, count: count) }
                    }
                    for i in 0..<count {
                        let (from, to) = (sourceBit + i, targetBit + i)
                        let bit = source[from >> 6] >> UInt64(from & 63) & 1
                        slow[to >> 6] = slow[to >> 6] & ~(1 << UInt64(to & 63)) | bit << UInt64(to & 63)
                    }
                    #expect(fast == slow, "from bit \(sourceBit) to \(targetBit), \(count) bits")
                }
            }
        }
    }

    /// Clearing within a word, across two words with no whole one between, and over
    /// whole words with partial ones either side, against one bit at a time, the other
    /// bits kept.
    @Test func bitClearMatchesClearingBitByBit() {
        var generator = SplitMix64(seed: 11)
        for bit in [0, 1, 10, 63, 64, 65, 127, 128] {
            for count in [0, 1, 10, 54, 63, 64, 65, 100, 126, 128, 129, 191, 192] where bit + count <= 6 * 64 {
                let before = (0..<6).map { _ in generator.next() }
                var fast = before, slow = before
                fast.withUnsafeMutableBufferPointer { BitCopy.clear($0.baseAddress!, bit: bit, count: count) }
                for i in bit..<(bit + count) { slow[i >> 6] &= ~(1 << UInt64(i & 63)) }
                #expect(fast == slow, "\(count) bits from bit \(bit)")
            }
        }
    }

    @Test func setRunMatchesSettingCellByCell() {
        var generator = SplitMix64(seed: 3)
        for width in [1, 63, 64, 65, 130, 300] {
            var fast = BitGrid(width: width, height: 3), slow = fast
            for _ in 0..<40 {
                let x = Int.random(in: 0..<width, using: &generator)
                let count = Int.random(in: 0...(width - x), using: &generator)
                let y = Int.random(in: 0..<3, using: &generator)
                fast.setRun(y: y, x: x, count: count)
                for i in x..<(x + count) { slow[i, y] = true }
            }
            #expect(fast == slow, "width \(width)")
        }
    }

    /// Reading and writing up to 64 cells of a row at any column, inside the grid, across
    /// a word boundary, or hanging over either edge, against one cell at a time.
    @Test func bitsOfARowMatchCellByCell() {
        var generator = SplitMix64(seed: 11)
        for width in [1, 8, 63, 64, 65, 130] {
            var grid = BitGrid(width: width, height: 2)
            for x in 0..<width where generator.next() & 1 == 1 { grid[x, 1] = true }
            for x in [-70, -64, -9, -1, 0, 1, 7, 56, 63, 64, 100, 129] {
                for count in [1, 8, 33, 64] {
                    var read: UInt64 = 0
                    for i in 0..<count where (0..<width).contains(x + i) && grid[x + i, 1] { read |= 1 << UInt64(i) }
                    #expect(grid.bits(x: x, y: 1, count: count) == read, "width \(width), \(count) cells at \(x)")
                    let value = generator.next()
                    var fast = grid, slow = grid
                    fast.insertBits(value, count: count, x: x, y: 0)
                    for i in 0..<count where (0..<width).contains(x + i) && value >> UInt64(i) & 1 == 1 { slow[x + i, 0] = true }
                    #expect(fast == slow, "width \(width), \(count) cells at \(x)")
                }
            }
            #expect(grid.bits(x: 0, y: 2, count: 8) == 0 && grid.bits(x: 0, y: -1, count: 8) == 0)
        }
    }

    /// The box of a grid's live cells, and of any rectangle of it, against the box of
    /// its cells one by one: few cells anywhere (the edges found from outside in stop at
    /// the first cell that settles them), busy grids, one word a row and many, and
    /// grids of two, three and five planes (a cell in any plane counts).
    @Test func liveBoundsMatchTheCellsOneByOne() {
        var generator = SplitMix64(seed: 11)
        func box(_ cells: [(x: Int, y: Int)], in area: TileRect) -> TileRect? {
            let inside = cells.filter { $0.x >= area.x && $0.x < area.x + area.width && $0.y >= area.y && $0.y < area.y + area.height }
            guard let left = inside.map(\.x).min(), let right = inside.map(\.x).max(),
                  let top = inside.map(\.y).min(), let bottom = inside.map(\.y).max() else { return nil }
            return TileRect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
        }
        for (width, height, count) in [(64, 64, 4), (200, 70, 4), (1, 5, 4), (130, 3, 4), (200, 70, 20), (70, 9, 8)] {
            for live in [0, 1, 2, 5, width * height / 3] {
                var states = StateGrid(width: width, height: height, states: count)
                var cells: [(x: Int, y: Int)] = []
                for _ in 0..<live {
                    let (x, y) = (Int(generator.next() % UInt64(width)), Int(generator.next() % UInt64(height)))
                    states[x, y] = Int(generator.next() % UInt64(count - 1)) + 1
                    cells.append((x, y))
                }
                let whole = TileRect(x: 0, y: 0, width: width, height: height)
                #expect(states.liveBounds == box(cells, in: whole), "\(width)x\(height), \(live) cells")
                let grid = states.occupied
                #expect(grid.liveBounds == box(cells, in: whole))
                for _ in 0..<20 {
                    let x = Int(generator.next() % UInt64(width)), y = Int(generator.next() % UInt64(height))
                    let area = TileRect(x: x, y: y, width: 1 + Int(generator.next() % UInt64(width - x)),
                                        height: 1 + Int(generator.next() % UInt64(height - y)))
                    #expect(grid.liveBounds(in: area) == box(cells, in: area), "\(area) of \(width)x\(height)")
                }
            }
        }
    }

    @Test func copyClipsAtEdges() {
        var source = BitGrid(width: 4, height: 4)
        for i in 0..<4 { source[i, i] = true }
        var target = BitGrid(width: 3, height: 3)
        source.copy(into: &target, atX: -1, y: -1)
        #expect(target.population == 3)
        #expect(target[0, 0] && target[1, 1] && target[2, 2])
        var far = BitGrid(width: 3, height: 3)
        source.copy(into: &far, atX: 10, y: -10)
        #expect(far.population == 0)
    }

    @Test func cellBufferRoundTrip() {
        let soup = try! Soup(density: 0.5, seed: 3).cells(x: 0, y: 0, width: 77, height: 9)
        let buffer = CellBuffer(width: 100, height: 12)
        buffer.insert(soup, atX: 13, y: 2)
        #expect(buffer.extract(x: 13, y: 2, width: 77, height: 9) == soup)
        #expect(buffer.population(x: 0, y: 0, width: 100, height: 12) == soup.population)
        buffer.clear(x: 13, y: 2, width: 77, height: 9)
        #expect(buffer.population(x: 0, y: 0, width: 100, height: 12) == 0)
    }

    /// Clearing a rectangle within one word of each row (the mask down the rows) and
    /// across words leaves every other cell, against one cell at a time.
    @Test func clearingARectangleKeepsTheCellsAround() throws {
        let soup = try Soup(density: 1, seed: 5).cells(x: 0, y: 0, width: 300, height: 7)
        for (x, width) in [(0, 1), (63, 1), (64, 1), (130, 5), (128, 64), (10, 54), (60, 8), (13, 200)] {
            let buffer = CellBuffer(width: 300, height: 7)
            buffer.insert(soup, atX: 0, y: 0)
            buffer.clear(x: x, y: 1, width: width, height: 5)
            let expected = (0..<7).flatMap { row in (0..<300).map { column in (1..<6).contains(row) && (x..<(x + width)).contains(column) ? false : soup[column, row] } }
            let cells = (0..<7).flatMap { row in (0..<300).map { buffer[$0, row] } }
            #expect(cells == expected, "\(width) from \(x)")
        }
    }

    /// A soup's rows, hashed eight cells at a time where the CPU has AVX-512, are the
    /// cells one at a time: rows that end inside a word, at a word's end and past it,
    /// left of the origin and far from it, with the C loop a CPU without it runs too.
    @Test func soupRowsAreTheirCellsOneAtATime() throws {
        var generator = SplitMix64(seed: 64)
        for (x, y, width) in [(-50, -20, 1), (0, 0, 63), (7, 3, 64), (-65, 9, 65), (1 << 40, -(1 << 33), 200), (-3, 0, 1000)] {
            let soup = try Soup(density: Double(generator.next() % 1000) / 1000, seed: generator.next())
            let cells = soup.cells(x: x, y: y, width: width, height: 3)
            for row in 0..<3 {
                let alone = (0..<width).allSatisfy { cells[$0, row] == soup.isAlive(x: x + $0, y: y + row) }
                #expect(alone, "\(width) wide at \(x), \(y + row)")
                var scalar = [UInt64](repeating: .max, count: (width + 63) / 64)
                tessera_soup_row_scalar(soup.rowKey(y + row), Int64(x), width, soup.threshold, &scalar)
                #expect(scalar == Array(cells.words[row * scalar.count..<(row + 1) * scalar.count]), "\(width) wide at \(x)")
            }
        }
        #expect(try Soup(density: 0.5, seed: 1).cells(x: 3, y: 4, width: 0, height: 5).population == 0)
    }

    @Test func soupDependsOnlyOnSeedAndCoordinates() throws {
        let soup = try Soup(density: 0.35, seed: 42)
        let whole = soup.cells(x: -50, y: -20, width: 100, height: 40)
        let part = soup.cells(x: -13, y: 5, width: 30, height: 7)
        #expect(whole.cropped(x: 37, y: 25, width: 30, height: 7) == part)
        let density = Double(whole.population) / 4000
        #expect(abs(density - 0.35) < 0.05)
        #expect(try Soup(density: 0.35, seed: 43).cells(x: -50, y: -20, width: 100, height: 40) != whole)
        #expect(throws: TesseraError.self) { try Soup(density: 1.5, seed: 1) }
    }
}

