import FerryDropbox
import FerryStore
import Foundation
import Logging

/// Makes Dropbox calls for one job's account: a fresh access token for every call, one refresh-and-retry when
/// Dropbox says the token expired, and a few quick retries of transient failures (5xx, dropped connections)
/// before the attempt is given up. Rate limits are not retried here: the job is deferred instead.
struct DropboxCaller: Sendable {
    let account: String
    let tokens: AccountTokenProvider
    let logger: Logger
    /// Extra tries for transient failures within one attempt.
    var transientRetries = 2
    /// The caller waited for the request's slot itself (before taking the account's commit turn, so the turn is
    /// never held through a wait for a slot): the first try of each call skips the pacer.
    var firstSlotTaken = false

    func call<T: Sendable>(_ action: String, _ body: @Sendable (DropboxClient, String) async throws -> T) async throws -> T {
        var credentials = try await tokens.jobCredentials(for: account)
        var refreshed = false
        var transient = 0
        var paced = firstSlotTaken
        while true {
            let token = credentials.accessToken ?? ""
            if !paced { try await tokens.pacer.awaitSlot(account: account) }
            paced = false
            do {
                return try await body(tokens.dropbox(credentials), token)
            } catch let error as DropboxError where (error.code == .expiredAccessToken || error.code == .invalidAccessToken) && !refreshed {
                // Expired early or revoked: refresh once (the refresher tells revoked apart via invalid_grant).
                refreshed = true
                logger.info("access token refused; refreshing", metadata: ["reason": "\(error.code.rawValue)"])
                credentials = try await tokens.jobCredentials(for: account, afterRejecting: token)
            } catch let error as DropboxError where error.isRetryable && error.code != .rateLimited && error.code != .tooManyWriteOperations
                && transient < transientRetries
            {
                transient += 1
                let delay = Double.random(in: 0...min(2.0, 0.25 * pow(2, Double(transient))))
                logger.notice("transient Dropbox failure; retrying", metadata: ["action": "\(action)", "error": "\(error)", "retry_in_s": "\(String(format: "%.2f", delay))"])
                try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            }
        }
    }
}
