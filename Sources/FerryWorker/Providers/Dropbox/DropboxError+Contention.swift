import FerryDropbox

extension DropboxError {
    /// Namespace lock contention in either of its forms: a 409 route error (or batch entry) tagged
    /// `too_many_write_operations`, or HTTP 429 whose RateLimitError reason is `too_many_write_operations`.
    var isWriteContention: Bool {
        code == .tooManyWriteOperations || (code == .rateLimited && tags.contains("too_many_write_operations"))
    }
}
