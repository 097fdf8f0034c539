import AsyncHTTPClient
import Foundation
import NIOHTTP1
@testable import FerryDevServer

/// Requests to the Drive emulation, in Google's shapes.
extension DevServerHarness {
    /// `POST /token` with a form body.
    func googleToken(_ form: [(String, String)]) async throws -> HTTPResult {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = form.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $1)" }.joined(separator: "&")
        return try await request(.POST, "/token", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(body.utf8))
    }

    /// A Drive access token for `account`, through the refresh grant with the app key and secret as client id and secret.
    func googleAccessToken(account: String = "alice") async throws -> String {
        let refresh = server.issueGoogleDriveRefreshToken(account: account)
        let answer = try await googleToken([
            ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", Self.appKey), ("client_secret", appSecret),
        ])
        return answer.json["access_token"] as? String ?? ""
    }

    /// A Drive call with the bearer token.
    func drive(_ method: HTTPMethod, _ path: String, token: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> HTTPResult {
        try await request(method, path, headers: [("Authorization", "Bearer \(token)")] + headers, body: body)
    }

    /// `uploadType=media` of `bytes` (a file named "Untitled" in the root).
    func driveMedia(_ bytes: [UInt8], token: String) async throws -> HTTPResult {
        try await drive(.POST, "/upload/drive/v3/files?uploadType=media", token: token, body: bytes)
    }

    /// `uploadType=multipart` with `metadata` (JSON text).
    func driveMultipart(_ metadata: String, _ bytes: [UInt8], token: String, method: HTTPMethod = .POST, id: String? = nil) async throws -> HTTPResult {
        let boundary = "b0undary"
        var body = Array("--\(boundary)\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n\(metadata)\r\n--\(boundary)\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        body += bytes
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        let path = "/upload/drive/v3/files" + (id.map { "/" + $0 } ?? "") + "?uploadType=multipart"
        return try await drive(method, path, token: token, headers: [("Content-Type", "multipart/related; boundary=\(boundary)")], body: body)
    }

    /// `errors[0].reason` of a Drive error body.
    static func reason(_ result: HTTPResult) -> String? {
        ((result.json["error"] as? [String: Any])?["errors"] as? [[String: Any]])?.first?["reason"] as? String
    }
}
