import Hummingbird

/// Dispatch of the stand-in routes (Flickr REST, Flickr photos, plain web files).
extension DevServerResponder {
    func standIn(_ route: StandInRoute, request: Request) async throws -> Response {
        switch route {
        case .flickrREST: return try await flickrREST(request)
        case .flickrPhoto(let rest): return try flickrPhoto(rest, request: request)
        case .web(let rest): return try web(rest, request: request)
        }
    }

    /// 405 with `Allow`, as a plain web server answers.
    func methodNotAllowed(_ allowed: String) -> DropboxError {
        var error = DropboxError.text(.methodNotAllowed, "Method Not Allowed")
        error.headers[.allow] = allowed
        return error
    }

    /// The bandwidth limit, read again for every piece of a body.
    var downloadRate: @Sendable () -> Int64 {
        let faults = backend.faults
        return { faults.configuration.downloadBytesPerSecond }
    }

    /// The byte before which bodies wait (0: none), read again for every piece.
    var downloadPauseAt: @Sendable () -> Int64 {
        let faults = backend.faults
        return { faults.configuration.downloadPauseAtByte }
    }
}
