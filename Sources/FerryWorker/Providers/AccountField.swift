import FerryStore

/// One row of `ferry account show`: a label in the account kind's words and its value (never a secret).
public struct AccountField: Sendable, Hashable {
    public var label: String
    public var value: String

    public init(_ label: String, _ value: String) {
        self.label = label
        self.value = value
    }

    /// Whether a sealed secret is stored, in the same words for every kind.
    public static func secret(_ label: String, isStored: Bool) -> AccountField {
        AccountField(label, isStored ? "stored (encrypted)" : "none")
    }

    /// A base URL that replaces the provider's own host.
    public static func url(_ label: String, _ value: String?) -> AccountField {
        AccountField(label, value ?? "(provider default)")
    }
}
