/// Unguessable URL-safe random strings for tokens, codes and session ids.
enum RandomToken {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// `bytes` random bytes rendered as base64url (6 bits per character).
    static func make(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let count = (bytes * 8 + 5) / 6
        return String((0..<count).map { _ in alphabet[Int(generator.next() % 64)] })
    }
}
