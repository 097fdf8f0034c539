/// A code the authorize page issued, waiting for its exchange at the token endpoint.
struct GoogleAuthorizationCode: Sendable {
    let account: String
    let codeChallenge: String?
    let challengeMethod: String
    let redirectURI: String?
    let expiresAt: Double
}
