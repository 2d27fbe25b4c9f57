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
