import AsyncHTTPClient
import FerryCore
import FerryHTTP
import FerryStore
import Foundation
import NIOCore

extension HTTPFetchHandler {
    /// One attempt of one URL fetch.
    struct Attempt: Sendable {
        let handler: HTTPFetchHandler
        let context: JobContext
        let partial: PartialDownload
        let url: String
        /// `url` without query string or user info, for logs and messages.
        let shown: String

        func run(recorded: FetchCursor?, expectedSHA256: String?) async throws -> JobResult {
            // The recorded validators only vouch for bytes PartialDownload actually kept.
            var validators = partial.offset > 0 ? recorded : nil
            if partial.offset > 0 {
                context.logger.info("resuming download", metadata: ["offset": "\(partial.offset)", "url": "\(shown)"])
            }
            var restarts = 0
            while true {
                let rangeStart = partial.offset > 0 ? partial.offset : nil
                let response = try await send(rangeStart: rangeStart, ifRange: validators?.validator)
                let status = Int(response.status.code)
                let etag = response.headers.first(name: "ETag")
                let lastModified = response.headers.first(name: "Last-Modified")
                let total: Int64?
                switch status {
                case 206:
                    let range = ContentRange(response.headers.first(name: "Content-Range"))
                    let sameFile = validators?.etag == nil || etag == nil || validators?.etag == etag
                    guard let rangeStart, let range, range.start == rangeStart, sameFile else {
                        try await startOver(because: sameFile ? "the partial answer does not continue the file" : "the remote file's ETag changed", restarts: &restarts)
                        validators = nil
                        continue
                    }
                    total = range.total
                case 200...299:
                    if partial.offset > 0 {
                        // If-Range failed (the file changed) or the server ignores ranges: the body is the whole file.
                        context.logger.notice("server sent the whole file; starting over", metadata: ["offset": "\(partial.offset)", "url": "\(shown)"])
                        try await partial.restart()
                    }
                    total = response.headers.first(name: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
                case 416 where rangeStart != nil:
                    try await startOver(because: "the server cannot serve the rest from the recorded offset (416)", restarts: &restarts)
                    validators = nil
                    continue
                default:
                    throw Self.failure(status: status, retryAfter: response.headers.first(name: "Retry-After"), shown: shown)
                }

                let cursor = FetchCursor(temp: partial.temporary, offset: 0, etag: etag, lastModified: lastModified, length: total)
                try await receive(response.body, total: total, cursor: cursor)
                return try await finish(
                    total: total, etag: etag, expectedSHA256: expectedSHA256, modified: RemoteTimestamp.http(lastModified))
            }
        }

        /// Drops the kept bytes so the next request asks for the whole file.
        func startOver(because reason: String, restarts: inout Int) async throws {
            restarts += 1
            guard restarts <= 2 else {
                throw JobFailure.retryable("http_range_failed", "\(shown): \(reason), again after starting over")
            }
            context.logger.notice("starting the download over", metadata: ["reason": "\(reason)", "url": "\(shown)"])
            try await partial.restart()
        }

        /// Streams the body into the partial file, checkpointing large downloads.
        func receive(_ body: HTTPClientResponse.Body, total: Int64?, cursor: FetchCursor) async throws {
            let records = total.map { $0 >= handler.checkpointBytes } ?? true
            var checkpointed = partial.offset
            var checkpointedAt = ContinuousClock.now
            do {
                for try await piece in body {
                    try context.checkCancellation()
                    try await partial.append(piece)
                    guard records else { continue }
                    let fresh = partial.offset - checkpointed
                    // At most one fsync per second on a fast link (each one waits for the disk), at least every
                    // couple of seconds on a slow one.
                    let since = ContinuousClock.now - checkpointedAt
                    if (fresh >= handler.checkpointBytes && since >= .seconds(1))
                        || (fresh >= handler.idleCheckpointBytes && since >= handler.checkpointInterval)
                    {
                        checkpointed = try await checkpoint(cursor, total: total)
                        checkpointedAt = ContinuousClock.now
                    }
                }
            } catch let error
                where !(error is JobFailure || error is CancellationError || error is LeaseLost || error is POSIXFailure)
            {
                // The connection broke mid-body. AsyncHTTPClient reports that as an HTTPClientError or as the HTTP
                // parser's error (a server gone before Content-Length was reached: "stream ended at an unexpected
                // time"). Keep what arrived for the next attempt before giving this one up.
                if records && partial.offset > checkpointed { _ = try? await checkpoint(cursor, total: total) }
                if let error = error as? HTTPClientError { throw transportFailure(error) }
                throw JobFailure.retryable(
                    "http_transport", "fetching \(shown) stopped at byte \(partial.offset): \(Self.safeDescription(error, url: url))")
            }
        }

        /// Makes the bytes so far durable and records where to resume.
        func checkpoint(_ cursor: FetchCursor, total: Int64?) async throws -> Int64 {
            let durable = try await partial.checkpoint()
            var cursor = cursor
            cursor.offset = durable
            try await context.reportProgress(bytesDone: durable, bytesTotal: total, session: cursor.json)
            return durable
        }

        func finish(total: Int64?, etag: String?, expectedSHA256: String?, modified: Date?) async throws -> JobResult {
            let complete = total.map { $0 == partial.offset } ?? true
            let finished: PartialDownload.Finished
            do {
                finished = try await partial.finish(
                    expectedLength: total, expectedSHA256: expectedSHA256, expectedContentHash: nil, modified: modified)
            } catch let failure as JobFailure where failure.code == "checksum_mismatch" && complete && expectedSHA256 != nil {
                // The whole file arrived and is not the one asked for: fetching it again gives the same bytes.
                throw JobFailure.permanent("sha256_mismatch", "\(shown): \(failure.message)")
            }
            var details: [String: JSONValue] = ["bytes": .int(finished.bytes)]
            if let sha256 = finished.sha256 { details["sha256"] = .string(sha256) }
            if let etag { details["etag"] = .string(etag) }
            return JobResult(bytes: finished.bytes, details: .object(details))
        }

        /// A GET, following redirects (the shared client does not, so uploads never follow one by accident).
        func send(rangeStart: Int64?, ifRange: String?) async throws -> HTTPClientResponse {
            var current = url
            for _ in 0...handler.maxRedirects {
                var request = HTTPClientRequest(url: current)
                request.method = .GET
                request.headers.add(name: "User-Agent", value: "ferry")
                if let rangeStart {
                    request.headers.add(name: "Range", value: "bytes=\(rangeStart)-")
                    if let ifRange { request.headers.add(name: "If-Range", value: ifRange) }
                }
                let response: HTTPClientResponse
                do {
                    // No logger: the client's own logs would carry the full URL.
                    response = try await handler.httpClient.execute(request, timeout: handler.requestTimeout)
                } catch let error as HTTPClientError {
                    throw transportFailure(error)
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    let text = ConnectionFailureText.describe(error, host: Self.hostPort(current)) ?? Self.safeDescription(error, url: url)
                    throw JobFailure.retryable("http_transport", "fetching \(shown): \(text)")
                }
                guard [301, 302, 303, 307, 308].contains(Int(response.status.code)), let location = response.headers.first(name: "Location") else {
                    return response
                }
                guard let next = URL(string: location, relativeTo: URL(string: current))?.absoluteURL.absoluteString,
                    next.hasPrefix("http://") || next.hasPrefix("https://")
                else {
                    throw JobFailure.permanent("bad_redirect", "\(shown) redirects to something that is not an http(s) URL")
                }
                context.logger.debug("following redirect", metadata: ["to": "\(DisplayURL.of(next))"])
                current = next
            }
            throw JobFailure.permanent("too_many_redirects", "\(shown) redirects more than \(handler.maxRedirects) times")
        }

        func transportFailure(_ error: HTTPClientError) -> JobFailure {
            if [HTTPClientError.invalidURL, .emptyHost, .emptyScheme].contains(error) {
                return .permanent("bad_url", "\(shown) is not a URL the client can fetch")
            }
            if [HTTPClientError.readTimeout, .connectTimeout, .deadlineExceeded, .writeTimeout].contains(error) {
                return .retryable("http_timeout", "fetching \(shown): \(error)")
            }
            return .retryable("http_transport", "fetching \(shown): \(Self.safeDescription(error, url: url))")
        }

        /// `host:port` of a URL, for a connection failure's message (no path, no query: those may hold secrets).
        static func hostPort(_ url: String) -> String? {
            guard let components = URLComponents(string: url), let host = components.host else { return nil }
            let port = components.port ?? (components.scheme == "https" ? 443 : 80)
            return "\(host):\(port)"
        }

        /// An error's description with the URL (and so its query string) replaced by its display form.
        static func safeDescription(_ error: any Error, url: String) -> String {
            String(describing: error).replacingOccurrences(of: url, with: DisplayURL.of(url))
        }

        /// How a final HTTP status fails the job.
        static func failure(status: Int, retryAfter: String?, shown: String) -> JobFailure {
            switch status {
            case 404:
                return .permanent("http_not_found", "HTTP 404 Not Found for \(shown)")
            case 410:
                return .permanent("http_gone", "HTTP 410 Gone for \(shown)")
            case 429:
                let wait = HTTPRetryAfter.seconds(retryAfter) ?? 30
                return .rateLimited(until: Date().addingTimeInterval(wait), "HTTP 429 from \(shown); asked to wait \(Int(wait.rounded(.up))) s")
            case 408, 500...599:
                return .retryable("http_server_error", "HTTP \(status) from \(shown)")
            default:
                return .permanent("http_status", "HTTP \(status) for \(shown)")
            }
        }
    }
}
