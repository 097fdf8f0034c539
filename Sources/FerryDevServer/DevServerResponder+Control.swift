import FerryCore
import Foundation
import Hummingbird

/// `/__dev/` routes: not part of Dropbox, never subject to faults. They let demos and tests
/// link accounts, seed files, read statistics and change fault settings at runtime.
extension DevServerResponder {
    func control(_ request: Request, path: String) async throws -> Response {
        // Raw-body and body-less web routes come before the JSON parsing below.
        if let response = try await webFileControl(request, path: path) { return response }
        var request = request
        let body = try await request.collectBody(upTo: 1024 * 1024)
        let json: JSONValue
        do {
            json = body.readableBytes == 0 ? .object([:]) : try JSONValue.parse(utf8: Array(body.readableBytesView))
        } catch {
            throw DropboxError.text(.badRequest, "Body must be JSON.")
        }
        switch (request.method, path) {
        case (.get, "/__dev/health"):
            return .json(.object(["status": .string("ok")]))
        case (.get, "/__dev/stats"):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            let data = try encoder.encode(backend.stats.snapshot())
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        case (.post, "/__dev/reset-stats"):
            backend.stats.reset()
            return .json(.object([:]))
        case (.post, "/__dev/accounts"):
            guard let name = json["account"]?.stringValue, !name.isEmpty else {
                throw DropboxError.text(.badRequest, "Expected {\"account\": \"name\"}.")
            }
            let account = try backend.ensureAccount(name)
            // As if the user linked a confidential app (code flow with the secret), unless asked for what a PKCE
            // flow without the secret yields.
            let publicClient: Bool
            switch json["public_client"] {
            case nil, .null?: publicClient = false
            case .bool(let value)?: publicClient = value
            default: throw DropboxError.text(.badRequest, "public_client must be a boolean.")
            }
            let refreshToken = backend.tokens.issueRefreshToken(account: account.name, publicClient: publicClient)
            return .json(.object([
                "account": .string(account.name),
                "account_id": .string(account.accountID),
                "refresh_token": .string(refreshToken),
            ]))
        case (.get, "/__dev/faults"):
            return try faultsResponse()
        case (.post, "/__dev/faults"):
            do {
                let configuration = try JSONDecoder().decode(FaultConfiguration.self, from: Data(body.readableBytesView))
                backend.faults.update(configuration)
            } catch {
                throw DropboxError.text(.badRequest, "Invalid fault configuration: \(error)")
            }
            return try faultsResponse()
        case (.post, "/__dev/seed"):
            guard let name = json["account"]?.stringValue, let count = json["count"]?.intValue, (0...1_000_000).contains(count) else {
                throw DropboxError.text(.badRequest, "Expected {\"account\", \"folder\", \"count\", \"size\"?, \"prefix\"?}.")
            }
            let folderText = json["folder"]?.stringValue ?? ""
            guard let folder = try? DropboxPath.parse(folderText, allowRoot: true, forWriting: true) else {
                throw DropboxError.text(.badRequest, "Invalid folder path.")
            }
            let size = Int(json["size"]?.intValue ?? 16)
            guard (0...(64 * 1024 * 1024)).contains(size) else { throw DropboxError.text(.badRequest, "size out of range") }
            try backend.ensureAccount(name)
            let created = try backend.files.seed(account: name, folder: folder, count: Int(count), size: size,
                                                 prefix: json["prefix"]?.stringValue ?? "file-")
            return .json(.object(["created": .int(Int64(created.count))]))
        case (.post, "/__dev/reset-cursors"):
            guard let name = json["account"]?.stringValue else { throw DropboxError.text(.badRequest, "Expected {\"account\": \"name\"}.") }
            backend.files.resetCursors(account: name)
            return .json(.object([:]))
        default:
            if let response = try standInControl(request.method, path: path, json: json) { return response }
            if let response = try googleDriveControl(request.method, path: path, json: json) { return response }
            throw DropboxError.text(.notFound, "Unknown dev-server route \(request.method.rawValue) \(path)")
        }
    }

    private func faultsResponse() throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let data = try encoder.encode(backend.faults.configuration)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
