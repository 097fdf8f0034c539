import FerryCore
import AsyncHTTPClient
import NIOCore

/// Content-upload routes: arguments in `Dropbox-API-Arg`, file bytes streamed as the body.
extension DropboxClient {
    /// Calls `POST {content}/2/{route}` with `argument` in `Dropbox-API-Arg` (ASCII-only JSON)
    /// and `body` as `application/octet-stream`; returns the JSON result.
    public func upload(_ route: String, argument: JSONValue, body: HTTPClientRequest.Body, accessToken: String) async throws(DropboxError) -> JSONValue {
        var request = try post(endpoints.content + "/2/" + route, accessToken: accessToken)
        request.headers.add(name: "Dropbox-API-Arg", value: argument.asciiJSONText)
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = body
        return try await sendJSON(request, Call(route: route, secrets: [accessToken]))
    }

    /// `files/upload_session/start` with the first bytes (may be empty); returns the session ID. `close` marks the
    /// last data (required before finish_batch). `concurrent` starts a `session_type: concurrent` session, whose
    /// appends go at multiples of 4 MiB in any order and in parallel: it takes no data and cannot close here.
    public func uploadSessionStart(close: Bool, concurrent: Bool = false, body: HTTPClientRequest.Body, accessToken: String) async throws(DropboxError)
        -> String
    {
        var argument: [String: JSONValue] = ["close": .bool(close)]
        if concurrent { argument["session_type"] = .tag("concurrent") }
        let result = try await upload("files/upload_session/start", argument: .object(argument), body: body, accessToken: accessToken)
        guard let sessionID = result["session_id"]?.stringValue else {
            throw DropboxError(code: .invalidResponse, httpStatus: 200, summary: "upload_session/start returned no session_id")
        }
        return sessionID
    }

    /// `files/upload_session/append_v2` of `body` at `offset`. A wrong offset fails with tags
    /// `["incorrect_offset"]` and ``DropboxError/correctOffset``.
    public func uploadSessionAppend(sessionID: String, offset: Int64, close: Bool, body: HTTPClientRequest.Body, accessToken: String) async throws(DropboxError) {
        let argument: JSONValue = .object(["cursor": Self.cursor(sessionID, offset), "close": .bool(close)])
        _ = try await upload("files/upload_session/append_v2", argument: argument, body: body, accessToken: accessToken)
    }

    /// `files/upload_session/finish`: appends `body` (often empty) at `offset` and commits.
    /// `contentHash` covers only this call's `body`, as Dropbox defines it for finish.
    public func uploadSessionFinish(
        sessionID: String, offset: Int64, commit: DropboxCommitInfo, contentHash: String?, body: HTTPClientRequest.Body, accessToken: String
    ) async throws(DropboxError) -> DropboxFileMetadata {
        var argument: [String: JSONValue] = ["cursor": Self.cursor(sessionID, offset), "commit": commit.json]
        if let contentHash { argument["content_hash"] = .string(contentHash) }
        let result = try await upload("files/upload_session/finish", argument: .object(argument), body: body, accessToken: accessToken)
        return try Self.fileMetadata(result, route: "upload_session/finish")
    }

    /// `files/upload_session/finish_batch_v2` (synchronous): commits up to 1,000 closed sessions.
    /// Each entry succeeds or fails on its own; a failure carries the `UploadSessionFinishError`
    /// as ``DropboxError/error`` and its tag path (e.g. `["lookup_failed", "not_closed"]`).
    public func uploadSessionFinishBatch(
        _ entries: [(sessionID: String, offset: Int64, commit: DropboxCommitInfo)], accessToken: String
    ) async throws(DropboxError) -> [Result<DropboxFileMetadata, DropboxError>] {
        let argument: JSONValue = .object(["entries": .array(entries.map { entry in
            .object(["cursor": Self.cursor(entry.sessionID, entry.offset), "commit": entry.commit.json])
        })])
        let result = try await rpc("files/upload_session/finish_batch_v2", argument, accessToken: accessToken)
        guard let items = result["entries"]?.arrayValue, items.count == entries.count else {
            throw DropboxError(code: .invalidResponse, httpStatus: 200, summary: "finish_batch_v2 returned a different number of entries")
        }
        var results: [Result<DropboxFileMetadata, DropboxError>] = []
        for item in items {
            switch item[".tag"]?.stringValue {
            case "success":
                // FileMetadata is a struct, so its fields sit beside the entry's own tag.
                guard case .object(var fields) = item else { continue }
                fields[".tag"] = nil
                results.append(.success(try Self.fileMetadata(.object(fields), route: "finish_batch_v2")))
            case "failure":
                let failure = item["failure"] ?? .null
                let tags = DropboxError.tagPath(failure)
                results.append(.failure(DropboxError(
                    code: tags.contains("too_many_write_operations") ? .tooManyWriteOperations : .pathError,
                    tags: tags, error: failure, summary: "finish_batch_v2 entry failed: " + tags.joined(separator: "/"))))
            default:
                throw DropboxError(code: .invalidResponse, httpStatus: 200, summary: "finish_batch_v2 entry with unknown tag")
            }
        }
        return results
    }

    /// `files/upload`: a whole file (at most 150 MiB) in one request. `contentHash` is the
    /// Dropbox content hash of `body`; Dropbox refuses the upload when it does not match.
    public func uploadFile(commit: DropboxCommitInfo, contentHash: String?, body: HTTPClientRequest.Body, accessToken: String) async throws(DropboxError) -> DropboxFileMetadata {
        var argument = commit.json
        if let contentHash, case .object(var members) = argument {
            members["content_hash"] = .string(contentHash)
            argument = .object(members)
        }
        let result = try await upload("files/upload", argument: argument, body: body, accessToken: accessToken)
        return try Self.fileMetadata(result, route: "upload")
    }

    /// `UploadSessionCursor`.
    static func cursor(_ sessionID: String, _ offset: Int64) -> JSONValue {
        .object(["session_id": .string(sessionID), "offset": .int(offset)])
    }

    static func fileMetadata(_ json: JSONValue, route: String) throws(DropboxError) -> DropboxFileMetadata {
        guard let metadata = DropboxFileMetadata(json: json) else {
            throw DropboxError(code: .invalidResponse, httpStatus: 200, summary: "\(route) returned no usable FileMetadata")
        }
        return metadata
    }
}
