/// Provider options checked against a provider's declarations: every name is declared and every value has the
/// declared type. Providers read them with the typed accessors.
public struct ProviderOptions: Sendable, Hashable {
    public private(set) var values: [String: JSONValue]

    public init(values: [String: JSONValue] = [:]) {
        self.values = values
    }

    public subscript(name: String) -> JSONValue? { values[name] }
    public func string(_ name: String) -> String? { values[name]?.stringValue }
    public func integer(_ name: String) -> Int64? { values[name]?.intValue }
    public func boolean(_ name: String) -> Bool? {
        if case .bool(let value)? = values[name] { return value }
        return nil
    }
    public var isEmpty: Bool { values.isEmpty }

    /// Checks `given` against `declared`, naming the first option that is unknown or has the wrong type.
    ///
    /// - Parameter what: the jobs these options are for, in error text ("Dropbox uploads").
    public static func checked(
        _ given: [String: OptionValue], declared: [ProviderOption], for what: String, line: Int?
    ) throws(ValidationIssue) -> ProviderOptions {
        var values = [String: JSONValue]()
        for name in given.keys.sorted() {
            guard let declaration = declared.first(where: { $0.name == name }) else {
                let known = declared.map(\.name).sorted()
                throw ValidationIssue(
                    line: line, field: name, problem: "not an option for \(what)",
                    fix: known.isEmpty ? "remove it (\(what) take no options)" : "remove it; options for \(what): " + known.joined(separator: ", "))
            }
            values[name] = try typed(given[name]!, declaration, line: line)
        }
        return ProviderOptions(values: values)
    }

    static func typed(_ value: OptionValue, _ option: ProviderOption, line: Int?) throws(ValidationIssue) -> JSONValue {
        func issue(_ problem: String, _ fix: String) -> ValidationIssue {
            ValidationIssue(line: line, field: option.name, problem: problem, fix: fix)
        }
        switch (option.type, value) {
        case (.string, .json(.string(let text))), (.string, .commandLine(let text)):
            return .string(text)
        case (.string, _):
            throw issue("must be a string", "quote the value")
        case (.boolean, .json(.bool(let flag))):
            return .bool(flag)
        case (.boolean, .commandLine(let text)):
            switch text {
            case "true", "yes", "1", "": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw issue("must be true or false", "write \(option.name)=true or \(option.name)=false")
            }
        case (.boolean, _):
            throw issue("must be true or false", "write true or false without quotes")
        case (.integer(let range), _):
            let number: Int64
            switch value {
            case .json(.int(let integer)): number = integer
            case .commandLine(let text):
                guard let integer = Int64(text) else { throw issue("must be an integer", "write a whole number") }
                number = integer
            default: throw issue("must be an integer", "write a whole number without quotes")
            }
            guard range.contains(number) else {
                throw issue("must be from \(range.lowerBound) to \(range.upperBound)", "pick a value in range")
            }
            return .int(number)
        case (.choice(let words), .json(.string(let text))), (.choice(let words), .commandLine(let text)):
            guard words.contains(text) else {
                throw issue("unknown value '\(text)'", "use one of " + words.joined(separator: ", "))
            }
            return .string(text)
        case (.choice(let words), _):
            throw issue("must be one of " + words.joined(separator: ", "), "quote the value")
        }
    }
}
