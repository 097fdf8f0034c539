/// A content digest a provider can verify, named so that copies can keep it with the bytes elsewhere (for
/// example as object metadata) and compare it later. Declared by the provider, in its own folder.
public struct ContentDigestKind: Sendable, Hashable {
    /// A stable name, lowercase letters, digits and `-` (usable as a metadata key).
    public let name: String
    /// A fresh hasher.
    public let make: @Sendable () -> any ContentHasher

    public init(name: String, make: @escaping @Sendable () -> any ContentHasher) {
        self.name = name
        self.make = make
    }

    public static func == (left: ContentDigestKind, right: ContentDigestKind) -> Bool { left.name == right.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
