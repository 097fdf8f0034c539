extension PartialDownload {
    /// The download to receive into this file: asked for from the file's end (`ranged`) when it holds bytes, else
    /// whole (`whole`). A server that ignores the range (200) sends the whole file, and one that answers an offset
    /// past the end (`pastEnd`: the file shrank) wants a new start: either way this file starts over. `failure`
    /// turns the provider's errors into job failures (and leaves any other error as it is).
    func resume<Download: RangedDownload>(
        ranged: (Int64) async throws -> Download, whole: () async throws -> Download,
        pastEnd: (any Error) -> Bool, failure: (any Error) -> any Error, context: JobContext
    ) async throws -> Download {
        let offset = self.offset
        if offset > 0 {
            do {
                let download = try await ranged(offset)
                if download.status == 206, download.contentRangeStart == offset {
                    context.logger.info("resuming download", metadata: ["offset": "\(offset)"])
                    return download
                }
                context.logger.notice("the server did not resume at the recorded offset; starting over", metadata: ["offset": "\(offset)"])
                try await restart()
                if download.status == 200 { return download }
            } catch where pastEnd(error) {
                context.logger.notice("recorded offset is past the end of the file; starting over")
                try await restart()
            } catch {
                throw failure(error)
            }
        }
        return try await whole()
    }
}
