import FerryOneDrive
import FerryStore
import Foundation
import Logging

/// Makes Graph calls for one job's account: a fresh access token for every call, one refresh-and-retry when Graph
/// refuses the token (401), and a few quick retries of transient failures before the attempt is given up. Throttling
/// (429, 503 with `Retry-After`) is not retried here: the job is deferred instead, without using an attempt.
struct OneDriveCaller: Sendable {
    let account: String
    let tokens: AccountTokenProvider
    let logger: Logger
    var transientRetries = 2

    func call<T: Sendable>(_ action: String, _ body: @Sendable (OneDriveClient, String) async throws -> T) async throws -> T {
        var credentials = try await held { try await tokens.credentials(for: account) }
        var refreshed = false
        var transient = 0
        while true {
            let token = credentials.accessToken ?? ""
            try await tokens.pacer.awaitSlot(account: account)
            do {
                return try await body(client(credentials), token)
            } catch let error as OneDriveError where error.code == .unauthorized && !refreshed {
                refreshed = true
                logger.info("access token refused; refreshing")
                credentials = try await held { try await tokens.credentials(for: account, afterRejecting: token) }
            } catch let error as OneDriveError where error.isRetryable && error.code != .rateLimited && transient < transientRetries {
                transient += 1
                let delay = Double.random(in: 0...min(2.0, 0.25 * pow(2, Double(transient))))
                logger.notice("transient OneDrive failure; retrying", metadata: [
                    "action": "\(action)", "error": "\(error)", "retry_in_s": "\(String(format: "%.2f", delay))",
                ])
                try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            }
        }
    }

    /// The same, with OneDrive failures turned into the job's failure.
    func job<T: Sendable>(_ action: String, _ body: @Sendable (OneDriveClient, String) async throws -> T) async throws -> T {
        do {
            return try await call(action, body)
        } catch let error as OneDriveError {
            throw error.jobFailure(doing: action)
        }
    }

    func client(_ credentials: AccountCredentials) -> OneDriveClient {
        OneDriveClient(httpClient: tokens.httpClient, endpoints: credentials.oneDriveEndpoints, logger: logger)
    }

    private func held<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as FerryStoreError where error.code == .accountNeedsReauthorization {
            throw JobFailure.held("account_needs_login", error.description)
        } catch let error as FerryStoreError where error.code == .credentials || error.code == .unknownAccount {
            throw JobFailure.permanent("account_unusable", error.description)
        } catch let error as FerryStoreError where error.code == .secretKeyMismatch {
            throw await tokens.keyMismatchFailure(account: account, error)
        }
    }
}
