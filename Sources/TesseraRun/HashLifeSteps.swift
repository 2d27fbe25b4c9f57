/// The sizes of HashLife's steps over a run: which powers of two, in what order, and
/// when a run takes larger steps than it planned.
extension HashLifeRun {
    /// The smallest step taken twice while growing (2^5 = 32 generations); what the top
    /// steps leave below it is taken at the end, as before.
    static let smallestTwice = 5

    /// The steps of a run of `generations`, as powers of two: growing from 1 (from a 4th
    /// of the top step for a pattern that `repeatsInSpace`, `firstBelowTop`), each the
    /// same as the one before or twice it, up to half the top step; then the top step;
    /// then at most five steps under 32 generations, smallest first. `StepPlan` may take
    /// larger steps than these.
    ///
    /// Growing from one generation, each step is at most twice the one before, so what
    /// it will cost is known from the last (jumping straight to the count's largest
    /// digit, acorn's area grew fourfold within a step, past any fair budget). Keeping
    /// to one step size then keeps HashLife's results, which above the smallest squares
    /// hold for one size only: with a step of a 256th of the run (at least 256
    /// generations), a gun's results are found again step after step, where the count's
    /// digits, each a new size, would find few (on Golly's guns of spaceships at 100000
    /// generations, 2 to 4 times faster than the count's digits). What the top steps
    /// leave over is taken while growing, as a second step of some sizes from 32
    /// generations up, while the pattern is small: taken at the end, each new size would
    /// forget the larger squares' results and step the grown pattern anew (acorn's 5206:
    /// 1 + 2 + … + 64 + 64 + 128, nineteen of 256, then 1, 2, 4 and 16).
    static func powers(of generations: UInt64, repeatsInSpace: Bool = false) -> [Int] {
        guard generations > 0 else { return [] }
        let highest = 63 - generations.leadingZeroBitCount
        let top = max(highest - 8, min(highest, 8))
        let planned = grown(generations, top: top)
        return repeatsInSpace ? startingAt(max(top - Self.firstBelowTop, 0), planned) : planned
    }

    /// `powers(of:)` growing from one generation to `top`.
    private static func grown(_ generations: UInt64, top: Int) -> [Int] {
        let step = UInt64(1) << UInt64(top)
        // The growing steps' total: what the top steps leave, and enough for one step of
        // each size below the top (1 + 2 + … + step/2).
        var growing = generations % step
        if growing < step - 1 { growing += step }
        // One step of each size up to 2^largest, then a second one of the sizes that
        // make up the rest, largest first.
        var powers: [Int] = [], last: [Int] = []
        if growing > 0 {
            let largest = 62 - (growing + 1).leadingZeroBitCount
            let twice = growing - ((UInt64(2) << UInt64(largest)) - 1)
            for power in 0...largest {
                powers.append(power)
                guard twice >> UInt64(power) & 1 == 1 else { continue }
                // A second small step costs as much as the first (the squares above the
                // moving parts are all new) before the budget has grown to pay for it:
                // taken while growing, it would hand a gun to tiles in its first
                // generations (p690-PT-Cordership-gun); from 32 generations on it pays.
                if power < Self.smallestTwice { last.append(power) } else { powers.append(power) }
            }
        }
        return powers + Array(repeating: top, count: Int((generations - growing) / step)) + last
    }

    /// How far below the top step a pattern that repeats in space starts: a 4th of it.
    ///
    /// Where a pattern's tree holds fewer squares than it occupies 32×32 squares (a
    /// metapixel, a propagator's trail: seven files of Golly's HashLife folder; every
    /// other file of it and of Life's guns and methuselahs holds six times as many or
    /// more), a step makes squares for the distinct squares of its tree, whatever its
    /// size: linear-propagator's steps of 1, 2, … 2048 generations made some 27000
    /// each, a third of its run at 2^20, and growing through them, which is there to
    /// learn what a step costs, learnt nothing.
    static let firstBelowTop = 2

    /// `powers` with the steps under `first` taken as steps of `first` where they add
    /// up to them, at the start; what they leave by its digits at the end, smallest first.
    static func startingAt(_ first: Int, _ powers: [Int]) -> [Int] {
        let small = powers.filter { $0 < first }.reduce(UInt64(0)) { $0 + (1 << UInt64($1)) }
        let rest = small & ((1 << UInt64(first)) - 1)
        return Array(repeating: first, count: Int(small >> UInt64(first))) + powers.filter { $0 >= first }
            + (0..<first).filter { rest >> UInt64($0) & 1 == 1 }
    }

    /// The steps of a run still to take (`powers(of:)` or `Settings.powers(of:)`),
    /// taken in turn, which grow past the plan where a larger step costs less.
    ///
    /// A step twice the size of the one before, where it made fewer than `raiseBelow`
    /// times its squares, makes each generation cheaper: the steps of its size still
    /// to come are taken in pairs, as steps of twice it, and so on while that holds. A
    /// chaotic pattern's squares double with the step, and its plan stays; a propagator
    /// or a metapixel's do not (linear-propagator's steps of 2^12 … 2^19 made 1.2–1.7
    /// times the squares of the one before: 2^20 generations in 0.75 million squares
    /// against 1.3 million in steps of 2^12).
    struct StepPlan {
        /// The steps to take, the next one last.
        private var pending: [Int]
        /// Whether steps may grow past the plan: not where the user chose their size.
        let mayRaise: Bool
        private var last: (power: Int, made: Int)?

        /// Squares a step of twice the one before may make, as a multiple of its, for
        /// the steps to come to double.
        static let raiseBelow = 1.75

        init(_ powers: [Int], mayRaise: Bool) {
            pending = powers.reversed()
            self.mayRaise = mayRaise
        }

        mutating func next() -> Int? { pending.popLast() }

        /// A step the store could not hold, as two of half its size (which need fewer
        /// squares at once).
        mutating func split(_ power: Int) {
            pending += [power - 1, power - 1]
            last = nil
        }

        /// Notes that a step of `power` made `made` squares, and doubles the steps of
        /// its size to come where it made fewer than `raiseBelow` times the squares of
        /// a step half its size just before it.
        mutating func took(_ power: Int, made: Int) {
            defer { last = (power, made) }
            guard mayRaise, let last, last.power == power - 1, Double(made) < Self.raiseBelow * Double(last.made),
                  pending.allSatisfy({ $0 <= power }) else { return }
            let same = pending.count { $0 == power }
            guard same >= 2 else { return }
            // The next last: the pairs, then the one left over, then the smaller ones.
            pending = pending.filter { $0 != power } + Array(repeating: power, count: same % 2)
                + Array(repeating: power + 1, count: same / 2)
        }
    }
}
