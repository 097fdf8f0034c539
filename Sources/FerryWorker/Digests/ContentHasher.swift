/// A provider's own content digest, computed while bytes stream by (a download written to disk, a copy read
/// from its source), so shared transfer code verifies what a provider promises without knowing its algorithm.
public protocol ContentHasher: Sendable {
    mutating func update(_ bytes: UnsafeRawBufferPointer)
    /// The digest as the provider writes it.
    func finalize() -> String
}
