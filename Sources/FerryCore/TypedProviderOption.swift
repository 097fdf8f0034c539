/// A provider option declared once: its name, type and help (the ``ProviderOption`` that validation, JSON
/// Lines and `--help` use) together with how its checked value is read back, typed. A provider keeps one of
/// these per option and never writes the option's name anywhere else.
public struct TypedProviderOption<Value: Sendable>: Sendable {
    /// What validation checks and help shows.
    public let declaration: ProviderOption
    let read: @Sendable (JSONValue) -> Value?

    init(_ declaration: ProviderOption, read: @escaping @Sendable (JSONValue) -> Value?) {
        self.declaration = declaration
        self.read = read
    }

    /// The option's name in `--option NAME=VALUE` and JSON Lines.
    public var name: String { declaration.name }
}

extension TypedProviderOption where Value == String {
    /// Free text.
    public static func string(_ name: String, help: String) -> Self {
        Self(ProviderOption(name, .string, help: help), read: { $0.stringValue })
    }

    /// One of `words`, read as the word (for open-ended lists such as Dropbox's thumbnail sizes).
    public static func choice(_ name: String, _ words: [String], help: String) -> Self {
        Self(ProviderOption(name, .choice(words), help: help), read: { $0.stringValue })
    }
}

extension TypedProviderOption where Value == Bool {
    /// True or false; a bare `--option NAME` is true.
    public static func boolean(_ name: String, help: String) -> Self {
        Self(ProviderOption(name, .boolean, help: help)) { value in
            if case .bool(let flag) = value { return flag }
            return nil
        }
    }
}

extension TypedProviderOption where Value == Int64 {
    /// A whole number within `range`.
    public static func integer(_ name: String, _ range: ClosedRange<Int64>, help: String) -> Self {
        Self(ProviderOption(name, .integer(range), help: help), read: { $0.intValue })
    }
}

extension TypedProviderOption where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of the enum's cases, written as its raw value (the words and their order come from the enum).
    public static func choice(_ name: String, help: String) -> Self {
        Self(ProviderOption(name, .choice(Value.allCases.map(\.rawValue)), help: help)) { value in
            value.stringValue.flatMap(Value.init(rawValue:))
        }
    }
}
