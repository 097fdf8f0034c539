import FerryProviders

/// What an operator can do about a failure, by its error code (the codes workers write as `code: message`).
/// Shown beside the error on the job page and the failed page; unknown codes get the general advice. Codes of
/// one provider come from its descriptor (`failureFixes`), the shared ones from here.
struct FailureFix: Sendable {
    private let byCode: [String: String]

    init(providers: ProviderRegistry) {
        var byCode = Self.shared
        for provider in providers.providers {
            byCode.merge(provider.failureFixes) { shared, _ in shared }
        }
        self.byCode = byCode
    }

    func text(code: String, exhausted: Bool) -> String {
        if let known = byCode[code] { return known }
        if exhausted { return "a temporary error that outlasted every attempt: retry once the cause has passed" }
        return "read the message; once its cause is fixed, retry the job"
    }

    private static let shared: [String: String] = [
        "http_not_found": "the source is gone (404): fix the URL and enqueue again",
        "not_found": "the source is gone: fix the address and enqueue again; retrying will fail the same way",
        "http_gone": "the source was removed (410): enqueue it again from a new address",
        "http_status": "the server refused the request: check the URL and its access rules, then retry",
        "destination_exists": "something else is at the destination: Retry with options mode=overwrite replaces it for an upload (autorename=true keeps both), existing=replace for a fetch, or an upload or copy that was immutable (ferry retry JOB --option …)",
        "account_needs_login": "run ferry account login ACCOUNT; the held jobs continue by themselves",
        "account_unusable": "check the account with ferry account list, fix it, then retry",
        "insufficient_space": "free space at the destination, then retry",
        "no_write_permission": "give the worker write access to the destination, then retry",
        "destination_unwritable": "give the worker write access to the destination, then retry",
        "unsafe_path": "the path is outside the worker's roots (--root): fix the path or the worker's roots",
        "source_missing": "the source file is missing: put it back, then retry",
        "source_unreadable": "give the worker read access to the source, then retry",
        "source_changed": "the source changed during the transfer: retry to send the new version",
        "no_handler": "start a worker that has a handler for this kind of job (see ferry worker --help)",
        "too_large": "the file is over the provider's limit: split it or use another destination",
        "http_timeout": "the server was slow: retry, or raise the timeout",
        "http_server_error": "the server failed: retry later",
        "http_transport": "the connection failed: check the network, then retry",
        "checksum_mismatch": "the bytes arrived damaged: retry",
        "size_mismatch": "the size changed during the transfer: retry",
    ]
}
