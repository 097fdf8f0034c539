/// Every provider option a job may carry, keyed by the URI scheme of the job's remote side and the role that side
/// plays: what the database checks `ferry.enqueue` against (the table `ferry.provider_options`, which
/// `ferry migrate` writes from the providers' declarations, so Swift stays the one source of truth).
public struct ProviderOptionCatalog: Sendable, Hashable {
    /// The part a provider plays in a job, as the table's `kind` column writes it.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        /// The destination of an upload.
        case upload
        /// The source of a fetch.
        case fetch
        /// The destination of a copy (its upload options and the listing filter).
        case copy
        /// The source of a copy.
        case copySource = "copy_source"
    }

    /// One option of one provider in one role.
    public struct Entry: Sendable, Hashable {
        public var scheme: String
        public var role: Role
        /// The provider's name in messages (`Dropbox`).
        public var provider: String
        public var option: ProviderOption

        public init(scheme: String, role: Role, provider: String, option: ProviderOption) {
            self.scheme = scheme
            self.role = role
            self.provider = provider
            self.option = option
        }
    }

    /// Sorted by scheme, role and option name, so equal catalogs compare equal.
    public let entries: [Entry]

    public init(_ entries: [Entry]) {
        self.entries = entries.sorted { ($0.scheme, $0.role.rawValue, $0.option.name) < ($1.scheme, $1.role.rawValue, $1.option.name) }
    }

    /// The rows of `ferry.provider_options` as one JSON array (for `jsonb_to_recordset`): scheme, kind, name,
    /// provider, type, and choices or min and max.
    public var json: JSONValue {
        .array(entries.map { entry in
            var row: [String: JSONValue] = [
                "scheme": .string(entry.scheme), "kind": .string(entry.role.rawValue), "name": .string(entry.option.name),
                "provider": .string(entry.provider),
            ]
            switch entry.option.type {
            case .string: row["type"] = .string("string")
            case .boolean: row["type"] = .string("boolean")
            case .integer(let range):
                row["type"] = .string("integer")
                row["min"] = .int(range.lowerBound)
                row["max"] = .int(range.upperBound)
            case .choice(let words):
                row["type"] = .string("choice")
                row["choices"] = .array(words.map(JSONValue.string))
            }
            return .object(row)
        })
    }
}
