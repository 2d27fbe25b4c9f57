/// The colours cells of more than two states are drawn in, in images and the viewer.
public enum StatePalette {
    /// A colour (red, green, blue) for each of `states` states: 0 white, 1 black as two
    /// states are, and the rest around the colour wheel from red to magenta, so that
    /// neighbouring states differ and the same state is the same colour in every frame.
    public static func colours(states: Int) -> [(UInt8, UInt8, UInt8)] {
        var colours: [(UInt8, UInt8, UInt8)] = [(255, 255, 255), (0, 0, 0)]
        let others = max(1, states - 2)
        for state in 2..<max(2, states) {
            // Hue in sixths of the wheel, 5/6 at most; full saturation, value 0.85.
            let hue = 5.0 * Double(state - 2) / Double(others), sector = Int(hue), f = hue - Double(sector)
            let (v, q, t) = (0.85, 0.85 * (1 - f), 0.85 * f)
            let (r, g, b): (Double, Double, Double) = switch sector {
            case 0: (v, t, 0)
            case 1: (q, v, 0)
            case 2: (0, v, t)
            case 3: (0, q, v)
            default: (t, 0, v)
            }
            colours.append((UInt8(r * 255), UInt8(g * 255), UInt8(b * 255)))
        }
        return colours
    }
}
