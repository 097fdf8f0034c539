import FerryGoogleDrive
import FerryHTTP
import FerryTestSupport
import Testing

@testable import FerryWorker

/// `account add` and `account login` read a token endpoint's answer through one mapping (the Drive and OneDrive
/// kinds both use it): what the person should do depends on the code, never on the summary text.
@Suite(.tags(.fast))
struct TokenEndpointSetupErrorTests {
    @Test("a refused grant asks for a login, a refused client for other credentials; a 5xx or transport failure is unreachable, a 400 rejected")
    func mapping() {
        let grant = GoogleDriveAccountKind.setupError(GoogleDriveError(code: .invalidGrant, summary: "invalid_grant"), doing: "check it")
        #expect(grant.code == .rejected && grant.message.hasPrefix("Google rejected the refresh token") && grant.message.hasSuffix("ferry account login"))
        let client = GoogleDriveAccountKind.setupError(GoogleDriveError(code: .invalidClient), doing: "check it")
        #expect(client.code == .rejected && client.message.contains("--client-id and --client-secret-file"))
        let down = GoogleDriveAccountKind.setupError(GoogleDriveError(code: .serverError, httpStatus: 503), doing: "check the refresh token")
        #expect(down.code == .unreachable && down.message.hasPrefix("could not check the refresh token with Google (GoogleDriveError.serverError (HTTP 503))"))
        #expect(GoogleDriveAccountKind.setupError(GoogleDriveError(code: .transport), doing: "check it").code == .unreachable)
        let refused = GoogleDriveAccountKind.setupError(GoogleDriveError(code: .badRequest, httpStatus: 400), doing: "check it")
        #expect(refused.code == .rejected && refused.message.hasSuffix("retry, or add with --no-verify"))
    }

    @Test("the summary a hostile endpoint sent is the error's safe summary: secrets in it are redacted before the message shows it")
    func hostileSummary() {
        let secret = "refresh-token-1234"
        let summary = GoogleDriveError.safe("nope \(secret) \u{1B}[2J" + String(repeating: "x", count: 5000), secrets: [secret])
        let error = GoogleDriveAccountKind.setupError(GoogleDriveError(code: .badRequest, summary: summary), doing: "check it")
        #expect(!error.message.contains(secret) && error.message.contains("[REDACTED]"))
        #expect(error.message.count < GoogleDriveError.summaryLimit + 200)
    }
}
