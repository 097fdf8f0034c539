import AsyncHTTPClient
import FerryStore
import Logging

/// Linking an account interactively (`ferry account login`), for kinds that link through OAuth: the
/// command prints ``start(_:httpClient:logger:)``'s URL, reads the code a person pastes, and stores what
/// ``finish(code:started:app:httpClient:logger:)`` returns. The command itself names no provider.
public protocol AccountLoginFlow: Sendable {
    /// The options `ferry account login` takes to create an account of this kind (its app and hosts); an
    /// existing account keeps what it has.
    var inputs: [AccountInput] { get }
    /// The app and hosts of a new account from what `login` was given.
    func app(from inputs: AccountInputs) throws(AccountSetupError) -> AccountApp
    /// The app and hosts of an existing account, to link it again.
    func app(of stored: AccountCredentials) throws(AccountSetupError) -> AccountApp
    /// The secrets a new account created by `login` stores for `app` (its kind's shape).
    func secrets(of app: AccountApp) -> [String: String]
    /// The loopback port the flow would like the browser sent back to (`http://127.0.0.1:PORT/`), for flows that
    /// redirect there; `nil` (the default): the person pastes the code.
    var loopbackPort: Int? { get }
    /// The authorize URL for `app`, with a fresh PKCE challenge. `loopbackPort` is the port `ferry account login`
    /// listens on (the preferred one, or any free one when that is taken), `nil` when it listens nowhere.
    func start(_ app: AccountApp, loopbackPort: Int?, httpClient: HTTPClient, logger: Logger) -> AccountLoginStart
    /// Redeems the pasted code. Throws ``AccountSetupError``: `rejected` for a code or app the provider
    /// refused, `unreachable` when it could not be asked.
    func finish(
        code: String, started: AccountLoginStart, app: AccountApp, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> AccountLoginGrant
    /// The option a person gives a new token with (`--token-file FILE`, `-` for standard input), for kinds linked
    /// with a token the person makes at the provider rather than through a browser's authorization code; `nil` (the
    /// default) for OAuth flows. `ferry account login` then takes it for an existing account too (read from the file,
    /// or pasted on standard input when not given, never from the command line), prints ``start(_:httpClient:logger:)``'s
    /// URL as where such a token is made, and hands the token to ``finish(code:started:app:httpClient:logger:)`` as the code.
    var pastedToken: AccountInput? { get }
}

extension AccountLoginFlow {
    public var pastedToken: AccountInput? { nil }
    public var loopbackPort: Int? { nil }
}
