import Foundation
import NIOHTTP1

/// A fully received HTTP response.
struct HTTPResult: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed with Foundation (independent of the server's own JSON code).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])) as? [String: Any] ?? [:]
    }

    func header(_ name: String) -> String? { headers.first(name: name) }

    /// `Dropbox-API-Result` parsed.
    var apiResult: [String: Any] {
        guard let value = header("Dropbox-API-Result") else { return [:] }
        return (try? JSONSerialization.jsonObject(with: Data(value.utf8))) as? [String: Any] ?? [:]
    }

    /// `error[".tag"]` of a Dropbox error body.
    var errorTag: String? { (json["error"] as? [String: Any])?[".tag"] as? String }
    var errorSummary: String { json["error_summary"] as? String ?? "" }
}
