/// One value of a provider's content digest (``ContentDigestKind``), as a source states it.
public struct ContentDigest: Sendable, Equatable {
    public var kind: ContentDigestKind
    public var value: String

    public init(kind: ContentDigestKind, value: String) {
        self.kind = kind
        self.value = value
    }
}
