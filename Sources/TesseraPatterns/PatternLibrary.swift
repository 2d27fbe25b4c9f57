import TesseraCore

/// The named starting patterns, as RLE.
public enum PatternLibrary {
    public static let names = [
        "blinker", "beacon", "octagon", "glider", "lwss", "pulsar", "gosper", "rpentomino", "acorn", "diehard",
    ]

    static let rle: [String: String] = [
        "blinker": "#N Blinker\nx = 3, y = 1, rule = B3/S23\n3o!",
        "beacon": "#N Beacon\nx = 4, y = 4, rule = B3/S23\n2o2b$2o2b$2b2o$2b2o!",
        "octagon": "#N Octagon 2 (period 5)\nx = 8, y = 8, rule = B3/S23\n3b2o$2bo2bo$bo4bo$o6bo$o6bo$bo4bo$2bo2bo$3b2o!",
        "glider": "#N Glider\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!",
        "lwss": "#N Lightweight spaceship\nx = 5, y = 4, rule = B3/S23\nbo2bo$o$o3bo$4o!",
        "pulsar": "#N Pulsar\nx = 13, y = 13, rule = B3/S23\n2b3o3b3o2$o4bobo4bo$o4bobo4bo$o4bobo4bo$2b3o3b3o2$2b3o3b3o$o4bobo4bo$o4bobo4bo$o4bobo4bo2$2b3o3b3o!",
        "gosper": "#N Gosper glider gun\nx = 36, y = 9, rule = B3/S23\n24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!",
        "rpentomino": "#N R-pentomino\nx = 3, y = 3, rule = B3/S23\nb2o$2o$bo!",
        "acorn": "#N Acorn\nx = 7, y = 3, rule = B3/S23\nbo$3bo$2o2b3o!",
        "diehard": "#N Diehard\nx = 8, y = 3, rule = B3/S23\n6bo$2o$bo3b3o!",
    ]

    /// The built-in pattern called `name` (case-insensitive), or `nil`.
    public static func pattern(named name: String) -> Pattern? {
        rle[name.lowercased()].map { try! RLE.parse($0) }
    }
}
