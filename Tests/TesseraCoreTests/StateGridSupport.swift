import Testing
@testable import TesseraCore

extension StateGrid {
    /// Half the cells in a random state, half 0, from `generator`.
    static func soup(width: Int, height: Int, states: Int, using generator: inout SplitMix64) -> StateGrid {
        var cells = StateGrid(width: width, height: height, states: states)
        for y in 0..<height { for x in 0..<width where generator.next() % 2 == 0 { cells[x, y] = Int(generator.next() % UInt64(states)) } }
        return cells
    }
}

/// A cell's next state where states count on (Generations, Larger than Life's
/// history), cell by cell: a dead cell is born where `decided`, a live one survives
/// where `decided` and else goes to 2, a dying one counts on to 0.
func nextState(_ state: Int, decided: Bool, states: Int) -> Int {
    switch state {
    case 0: decided ? 1 : 0
    case 1: decided ? 1 : 2
    default: state + 1 < states ? state + 1 : 0
    }
}

@Suite struct StateGridOnesTests {
    /// What a multi-state reader does with the cells it read as live without a state
    /// (`o`, `A`): those in state 0 become 1, and every cell already in a state keeps it.
    @Test func onesGoWhereNoStateIs() {
        var generator = SplitMix64(seed: 5)
        let soup = StateGrid.soup(width: 70, height: 9, states: 7, using: &generator)
        var ones = BitGrid(width: 70, height: 9)
        for y in 0..<9 where y % 2 == 0 { ones.setRun(y: y, x: 0, count: 70) }
        var grid = soup
        grid.setOnes(ones)
        for y in 0..<9 {
            for x in 0..<70 { #expect(grid[x, y] == (soup[x, y] == 0 && ones[x, y] ? 1 : soup[x, y]), "(\(x), \(y))") }
        }
    }
}
