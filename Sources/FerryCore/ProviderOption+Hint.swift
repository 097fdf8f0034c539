extension ProviderOption.ValueType {
    /// How a value is written, for help text (`true|false`, `1…2000`, `add|overwrite`).
    public var hint: String {
        switch self {
        case .string: "TEXT"
        case .boolean: "true|false"
        case .integer(let range): "\(range.lowerBound)…\(range.upperBound)"
        case .choice(let words): words.count <= 4 ? words.joined(separator: "|") : "NAME"
        }
    }
}
