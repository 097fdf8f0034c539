import AsyncHTTPClient
import FerryInstagram
import FerryStore
import Foundation
import Logging

/// Makes Instagram calls for one account: the account's current token (refreshed through the token provider when
/// it is due), the account's request pace (`tps_limit` and the usage headers), one refresh when the service rejects
/// the token (code 190; an expired or revoked token then holds the job), and a few quick retries of transient
/// failures. Rate limits are not retried here: the job is deferred without using an attempt.
struct InstagramCaller: Sendable {
    let account: String
    let tokens: AccountTokenProvider
    let logger: Logger
    var pace: InstagramPace = .shared
    /// Extra tries for transient failures within one attempt.
    var transientRetries = 2

    /// Runs `body` with a client and the token, with Instagram's failures turned into the job's failure.
    func job<T: Sendable>(_ action: String, _ body: @Sendable (InstagramClient, String) async throws -> T) async throws -> T {
        var credentials = try await held { try await tokens.credentials(for: account) }
        guard credentials.provider == "instagram" else {
            throw JobFailure.permanent("account_unusable", "account \(account) is not an Instagram account")
        }
        var refreshed = false
        var transient = 0
        while true {
            guard let token = credentials.instagramToken else {
                throw JobFailure.held("instagram_token", "account \(account) has no Instagram token")
            }
            try await awaitTurn(action)
            do {
                return try await body(client(credentials), token)
            } catch let error as InstagramError where error.code == .invalidToken && !refreshed {
                // Expired early or revoked: one refresh tells them apart (a revoked token cannot be refreshed).
                refreshed = true
                logger.info("Instagram token refused; refreshing")
                credentials = try await held { try await tokens.credentials(for: account, afterRejecting: token) }
            } catch let error as InstagramError where error.isRetryable && transient < transientRetries {
                transient += 1
                let delay = Double.random(in: 0...min(2.0, 0.25 * pow(2, Double(transient))))
                logger.notice("transient Instagram failure; retrying", metadata: ["action": "\(action)", "error": "\(error)"])
                try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            } catch let error as InstagramError {
                throw error.jobFailure(doing: action)
            }
        }
    }

    /// The client for the account's host, reporting usage headers to the account's pace.
    func client(_ credentials: AccountCredentials) -> InstagramClient {
        let (pace, account) = (self.pace, self.account)
        return InstagramClient(httpClient: tokens.httpClient, endpoints: credentials.instagramEndpoints, logger: logger) { usage in
            pace.record(usage, account: account)
        }
    }

    /// Waits for the account's next request slot; a paused account (usage at its limit) defers the job instead.
    private func awaitTurn(_ action: String) async throws {
        try await tokens.pacer.awaitSlot(account: account)
        let (wait, paused) = pace.delay(account: account)
        if paused {
            let seconds = max(1, Double(wait.components.seconds))
            throw JobFailure.rateLimited(
                until: Date().addingTimeInterval(seconds), "\(action): the account's Instagram usage is at its limit; back in \(Int(seconds)) s")
        }
        if wait > .zero {
            logger.debug("pacing Instagram calls by the usage headers", metadata: ["wait_ms": "\(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)"])
            try await Task.sleep(for: wait)
        }
    }

    /// Maps "the account needs a new token" to a held job.
    private func held<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as FerryStoreError where error.code == .accountNeedsReauthorization {
            throw JobFailure.held("instagram_token", error.description)
        } catch let error as FerryStoreError where error.code == .credentials || error.code == .unknownAccount {
            throw JobFailure.permanent("account_unusable", error.description)
        } catch let error as FerryStoreError where error.code == .secretKeyMismatch {
            throw await tokens.keyMismatchFailure(account: account, error)
        }
    }
}
