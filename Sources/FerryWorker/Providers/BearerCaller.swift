import FerryStore
import Foundation
import Logging

/// Makes one job's calls to a bearer-token API (``BearerAPI``): a fresh access token for every call, one
/// refresh-and-retry when the service refuses the token (401), and a few quick retries of transient failures before
/// the attempt is given up. Rate limits are not retried here: the job is deferred instead, without using an attempt.
struct BearerCaller<API: BearerAPI>: Sendable {
    let account: String
    let tokens: AccountTokenProvider
    let logger: Logger
    /// Extra tries for transient failures within one attempt.
    var transientRetries = 2

    init(account: String, tokens: AccountTokenProvider, logger: Logger) {
        self.account = account
        self.tokens = tokens
        self.logger = logger
    }

    /// Runs `body` with a client and token; the service's failures come out as `API.Failure`, account problems as a
    /// `JobFailure` (held or permanent).
    func call<T: Sendable>(_ action: String, _ body: @Sendable (API.Client, String) async throws -> T) async throws -> T {
        var credentials = try await tokens.jobCredentials(for: account)
        var refreshed = false
        var transient = 0
        while true {
            let token = credentials.accessToken ?? ""
            try await tokens.pacer.awaitSlot(account: account)
            do {
                return try await body(client(credentials), token)
            } catch let error as API.Failure where error.refusesToken && !refreshed {
                // Expired early or revoked: refresh once (the refresher tells a revoked grant apart via invalid_grant).
                refreshed = true
                logger.info("access token refused; refreshing")
                credentials = try await tokens.jobCredentials(for: account, afterRejecting: token)
            } catch let error as API.Failure where error.isTransient && transient < transientRetries {
                transient += 1
                let delay = Double.random(in: 0...min(2.0, 0.25 * pow(2, Double(transient))))
                logger.notice("transient \(API.serviceName) failure; retrying", metadata: [
                    "action": "\(action)", "error": "\(error)", "retry_in_s": "\(String(format: "%.2f", delay))",
                ])
                try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            }
        }
    }

    /// The same, with the service's failures turned into the job's failure.
    func job<T: Sendable>(_ action: String, _ body: @Sendable (API.Client, String) async throws -> T) async throws -> T {
        do {
            return try await call(action, body)
        } catch let error as API.Failure {
            throw error.jobFailure(doing: action)
        }
    }

    func client(_ credentials: AccountCredentials) -> API.Client {
        API.client(credentials, httpClient: tokens.httpClient, logger: logger)
    }
}
