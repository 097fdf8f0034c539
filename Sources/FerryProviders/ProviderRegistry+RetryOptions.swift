import FerryCore

extension ProviderRegistry {
    /// A retry's `NAME=VALUE` value as the JSON the providers declare for NAME: a true/false option becomes a
    /// boolean (`true`, `yes`, `1` or nothing; `false`, `no`, `0`), a number an integer, anything else a string (a
    /// SHA-256 in lowercase, as enqueue writes it). Ranges, choices and whether a job's provider takes NAME at all
    /// are checked by the database against each job's own provider (`ferry.check_requeued`). Used by
    /// `ferry retry --option` and the dashboard's retry with options.
    public func retryOptionValue(name: String, text value: String) throws(ValidationIssue) -> JSONValue {
        let types = Set(optionCatalog.entries.map(\.option).filter { $0.name == name }.map { declaration -> String in
            switch declaration.type {
            case .boolean: "boolean"
            case .integer: "integer"
            case .string, .choice: "string"
            }
        })
        switch types.count == 1 ? types.first : nil {
        case "boolean":
            switch value {
            case "true", "yes", "1", "": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw ValidationIssue(field: name, problem: "must be true or false", fix: "write \(name)=true or \(name)=false")
            }
        case "integer":
            guard let number = Int64(value) else {
                throw ValidationIssue(field: name, problem: "must be an integer", fix: "write a whole number")
            }
            return .int(number)
        default:
            return .string(name == "sha256" ? try EndpointSyntax.sha256Hex(value, field: name, line: nil) : value)
        }
    }
}
