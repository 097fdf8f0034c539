import AsyncHTTPClient
import FerryCore

extension PartialDownload {
    /// Bytes between checkpoints (each one syncs the file and records progress) on a fast link.
    static let checkpointBytes: Int64 = 8 * 1024 * 1024
    /// Time between checkpoints on a slow link.
    static let checkpointInterval: Duration = .seconds(2)

    /// Streams `body` into this file, syncing and recording progress every ``checkpointBytes`` (at most once a second:
    /// each sync waits for the disk) or ``checkpointInterval``; `session` makes the job's resume cursor for a durable
    /// offset (`nil`: the download cannot resume, nothing is recorded). A stream that breaks mid-body records what is
    /// durable and fails the attempt as `download_interrupted`, so the retry resumes there. Errors the job already
    /// explains (job failures, cancellation, a lost lease, a local write error, and `passes` for the provider's own)
    /// go through unchanged.
    func receive(
        _ body: HTTPClientResponse.Body, context: JobContext, total: Int64?, what: String,
        passes: @escaping (any Error) -> Bool = { _ in false }, session: @escaping (Int64) -> JSONValue?
    ) async throws {
        let clock = ContinuousClock()
        var last = (offset: offset, at: clock.now)
        func checkpoint() async throws {
            let durable = try await self.checkpoint()
            last = (durable, clock.now)
            guard let cursor = session(durable) else { return }
            try await context.reportProgress(bytesDone: durable, bytesTotal: total, session: cursor)
        }
        do {
            for try await piece in body {
                try context.checkCancellation()
                try await append(piece)
                if (offset - last.offset >= Self.checkpointBytes && clock.now - last.at >= .seconds(1))
                    || (clock.now - last.at >= Self.checkpointInterval && offset > last.offset)
                {
                    try await checkpoint()
                }
            }
        } catch let error where !(error is JobFailure || error is CancellationError || error is LeaseLost || error is POSIXFailure || passes(error)) {
            // The connection broke mid-body: keep what arrived for the next attempt.
            if offset > last.offset { try? await checkpoint() }
            throw JobFailure.retryable("download_interrupted", "the download of \(what) stopped at byte \(offset): \(error)")
        }
    }
}
