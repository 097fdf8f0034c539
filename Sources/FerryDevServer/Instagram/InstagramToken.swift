/// A long-lived token the emulation issued.
struct InstagramToken: Sendable {
    var userID: String
    var issuedAt: Double
    var expiresAt: Double
}
