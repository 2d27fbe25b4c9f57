extension Array where Element == Double {
    /// The middle value, the lower of the two middle ones for an even count; nil when empty.
    /// The benches report it for repeated runs: one slow outlier moves it not at all.
    package var median: Double? { isEmpty ? nil : sorted()[(count - 1) / 2] }
}
