import FerryCore
import Foundation
import Hummingbird
import NIOCore

/// Children pages (`$top`, `@odata.nextLink` with a `$skiptoken`) and downloads (`/content`, with `Range`).
extension DevServerResponder {
    func oneDriveChildren(
        _ account: String, _ target: OneDriveRoute.Target, query: [String: String], origin: String, store: OneDriveStore
    ) throws(OneDriveGraphError) -> Response {
        let folder = try oneDriveItem(account, target, store: store)
        guard folder.isFolder, let children = store.children(account, of: folder.id) else { throw .bad("The item is not a folder.") }
        let defaultSize = store.state.withLock { $0.defaultPageSize }
        let top = min(1000, max(1, Int(query["$top"] ?? "") ?? defaultSize))
        let skip = max(0, Int(query["$skiptoken"] ?? "") ?? 0)
        let page = children.dropFirst(skip).prefix(top)
        store.record { $0.childrenPages += 1 }
        var body: [String: JSONValue] = ["value": .array(page.map { $0.json(parentPath: store.parentPath(account, $0)) })]
        if skip + page.count < children.count {
            body["@odata.nextLink"] = .string(origin + "/v1.0/me/drive/items/\(FormDecoding.escape(folder.id))/children?$top=\(top)&$skiptoken=\(skip + page.count)")
        }
        return .json(.object(body))
    }

    func oneDriveDownload(_ account: String, _ target: OneDriveRoute.Target, request: Request, store: OneDriveStore) throws(OneDriveGraphError) -> Response {
        let item = try oneDriveItem(account, target, store: store)
        guard !item.isFolder else { throw .bad("A folder has no content.") }
        let size = item.content.count
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        store.record { $0.downloads += 1 }
        guard let range = request.headers[.range], let start = Self.oneDriveRangeStart(range) else {
            headers[.contentLength] = String(size)
            return Response(status: .ok, headers: headers, body: oneDriveBody(item.content[...]))
        }
        guard start.lower < size else {
            throw OneDriveGraphError(status: .rangeNotSatisfiable, code: "invalidRange", message: "The requested range is not satisfiable.")
        }
        let end = min(size - 1, start.upper ?? size - 1)
        store.record { $0.rangedDownloads += 1 }
        headers[.contentRange] = "bytes \(start.lower)-\(end)/\(size)"
        headers[.contentLength] = String(end - start.lower + 1)
        return Response(status: .partialContent, headers: headers, body: oneDriveBody(item.content[start.lower...end]))
    }

    /// A download body paced by ``FaultConfiguration/downloadBytesPerSecond`` (read again before every piece, so a
    /// test can slow a transfer down to stop a worker mid-download, then lift the limit).
    func oneDriveBody(_ bytes: ArraySlice<UInt8>) -> ResponseBody {
        let faults = backend.faults
        return ResponseBody(contentLength: bytes.count) { writer in
            var throttle = BandwidthThrottle(rate: { faults.configuration.downloadBytesPerSecond })
            var offset = bytes.startIndex
            while offset < bytes.endIndex {
                let end = min(bytes.endIndex, offset + throttle.nextPieceSize())
                try await writer.write(ByteBuffer(bytes: bytes[offset..<end]))
                try await throttle.didSend(end - offset)
                offset = end
            }
            try await writer.finish(nil)
        }
    }

    /// `bytes=N-` or `bytes=N-M`.
    static func oneDriveRangeStart(_ header: String) -> (lower: Int, upper: Int?)? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-"), let lower = Int(spec[..<dash]), lower >= 0 else { return nil }
        let tail = spec[spec.index(after: dash)...]
        guard tail.isEmpty || Int(tail) != nil else { return nil }
        return (lower, tail.isEmpty ? nil : Int(tail))
    }

    /// A request body of at most `limit` bytes, read at ``FaultConfiguration/uploadBytesPerSecond``.
    func oneDriveBody(_ request: Request, limit: Int, store: OneDriveStore) async throws -> [UInt8] {
        let faults = backend.faults
        var throttle = BandwidthThrottle(rate: { faults.configuration.uploadBytesPerSecond })
        var bytes = [UInt8]()
        for try await buffer in request.body {
            _ = throttle.nextPieceSize()
            guard bytes.count + buffer.readableBytes <= limit else {
                throw OneDriveGraphError(status: .contentTooLarge, code: "invalidRequest", message: "The body is larger than allowed.")
            }
            bytes += buffer.readableBytesView
            try await throttle.didSend(buffer.readableBytes)
        }
        return bytes
    }
}
