extension LocalDirectoryUploadHandler {
    /// `classify(error)`, with the temporary file removed when the disk is full: its bytes hold space that the next
    /// attempt or another job needs, and the next attempt starts over (the recorded offset no longer matches a file).
    static func failure(_ error: POSIXFailure, removing temporaryName: String, in folder: OwnedFile) async -> JobFailure {
        let failure = classify(error)
        if case .shortage(.noSpace) = failure.kind {
            _ = try? await BlockingIO.run { folder.removeChild(temporaryName) }
        }
        return failure
    }
}
