/// One option a provider accepts for a kind of job, declared by the provider and checked generically.
public struct ProviderOption: Sendable, Hashable {
    /// The type an option's value must have.
    public enum ValueType: Sendable, Hashable {
        case string
        case boolean
        /// A whole number within the range.
        case integer(ClosedRange<Int64>)
        /// One of these words.
        case choice([String])
    }

    /// The option's name in `--option NAME=VALUE` and in a JSON Lines record (`"options": {NAME: …}`).
    public var name: String
    public var type: ValueType
    /// One line for `--help` and docs/cli.md.
    public var help: String

    public init(_ name: String, _ type: ValueType, help: String) {
        self.name = name
        self.type = type
        self.help = help
    }
}
