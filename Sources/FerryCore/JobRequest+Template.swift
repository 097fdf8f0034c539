extension JobRequest {
    /// The request as a schedule stores it: every field the caller gave, options kept in the form they came in
    /// (command-line text is typed by the provider each time, as for `ferry enqueue`). Read back with
    /// `init(template:)`.
    public var template: JSONValue {
        var object: [String: JSONValue] = ["kind": .string(kind.rawValue), "source": .string(source), "to": .string(to)]
        if let batch { object["batch"] = .string(batch) }
        if let queue { object["queue"] = .string(queue) }
        if let priority { object["priority"] = .int(priority) }
        if let maxAttempts { object["max_attempts"] = .int(maxAttempts) }
        if let metadata { object["metadata"] = metadata }
        var typed = [String: JSONValue]()
        var text = [String: JSONValue]()
        for (name, value) in options {
            switch value {
            case .json(let json): typed[name] = json
            case .commandLine(let string): text[name] = .string(string)
            }
        }
        if !typed.isEmpty { object["options"] = .object(typed) }
        if !text.isEmpty { object["option_text"] = .object(text) }
        return .object(object)
    }

    /// A request from a stored `template`; nil when the stored value is not one (it was written by another tool).
    public init?(template: JSONValue) {
        guard case .object(let object) = template, let kind = object["kind"]?.stringValue.flatMap(JobKind.init(rawValue:)),
            let source = object["source"]?.stringValue, let to = object["to"]?.stringValue
        else { return nil }
        var options = [String: OptionValue]()
        for (name, value) in object["options"]?.objectValue ?? [:] { options[name] = .json(value) }
        for (name, value) in object["option_text"]?.objectValue ?? [:] {
            guard let text = value.stringValue else { return nil }
            options[name] = .commandLine(text)
        }
        self.init(
            kind: kind, source: source, to: to, batch: object["batch"]?.stringValue, queue: object["queue"]?.stringValue,
            priority: object["priority"]?.intValue, maxAttempts: object["max_attempts"]?.intValue,
            metadata: object["metadata"], options: options)
    }

    /// The same request with its local paths made absolute against `currentDirectory`, so it means the same
    /// thing when a worker elsewhere reads it.
    public func resolvingLocalPaths(currentDirectory: String) -> JobRequest {
        var copy = self
        switch kind {
        case .fetch: copy.to = Self.absolute(to, base: currentDirectory)
        case .upload: copy.source = Self.absolute(source, base: currentDirectory)
        case .copy: break
        }
        return copy
    }
}
