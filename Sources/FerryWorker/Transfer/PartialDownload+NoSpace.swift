extension PartialDownload {
    /// Runs `body`; when a write finds the disk full (`ENOSPC`, `EDQUOT`), removes the temporary file and throws the
    /// shortage (`no_space`: deferred, no attempt used). Its bytes would only hold space the next attempt or another
    /// job needs; the next attempt starts from zero (the recorded offset no longer matches a file).
    func freeingSpace<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as POSIXFailure where ResourceShortage(errno: error.code) == .noSpace {
            await discard()
            throw JobFailure.shortage(.noSpace, error.description)
        }
    }
}
