import AsyncHTTPClient
import FerryStore
import FerryWorker
import Logging

/// Memory accounts hold one token, sealed like every secret; usable as soon as they are added.
struct MemoryAccountKind: AccountKind {
    var linkedWithoutLogin: Bool { true }
    var usesStoredSecretsOnly: Bool { true }

    static let token = AccountInput("token", .secretFile, help: "File holding the token; - reads standard input.")
    var inputs: [AccountInput] { [Self.token] }

    func prepare(
        _ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> (NewAccount, note: String) {
        guard let token = inputs[Self.token] else {
            throw AccountSetupError(.usage, "\(Self.token.flag) is required for memory accounts")
        }
        var account = NewAccount(
            name: inputs.name, provider: inputs.provider, appKey: nil, secrets: ["token": token], refreshToken: nil,
            maxConcurrent: inputs.maxConcurrent)
        account.linkedWithoutLogin = true
        return (account, "added \(inputs.name) (memory)")
    }

    func shownFields(of account: AccountRecord) -> [AccountField] {
        [.secret("token", isStored: account.hasSecrets)]
    }
}
