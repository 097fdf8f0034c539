import FerryCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A dev server reached over HTTP, in its own process (``DevServerProcess``) or in the test's: the `/__dev/`
/// control routes, the accounts' options, and where it stores files. Tests written against it run on either.
public protocol DevServerControl: AnyObject, Sendable {
    /// `http://127.0.0.1:PORT`.
    var baseURL: String { get }
    /// The folder the server stores accounts' files and its state in.
    var storage: String { get }
    /// The app secret the server checks, and the file that holds it (`--app-secret-file`).
    var appSecret: String { get }
    var appSecretFile: String { get }
}

extension DevServerControl {
    /// `ferry account add` arguments pointing every host at this server.
    public var urlOptions: [String] {
        ["--api-url", baseURL, "--content-url", baseURL, "--authorize-url", baseURL]
    }

    /// `ferry account add` arguments for the app secret (the accounts of a confidential app need it).
    public var secretOptions: [String] { ["--app-secret-file", appSecretFile] }

    /// A new refresh token for `account` (creating the Dropbox-side account), as a confidential app gets it.
    public func refreshToken(for account: String) async throws -> String {
        let reply = try await request("POST", "/__dev/accounts", json: .object(["account": .string(account)]))
        guard let token = reply["refresh_token"]?.stringValue else { throw TestSupportError("no refresh token from the dev server") }
        return token
    }

    /// `GET /__dev/stats`.
    public func stats() async throws -> JSONValue {
        try await request("GET", "/__dev/stats")
    }

    /// `POST /__dev/faults`: replaces the whole fault configuration (keys left out go back to their defaults).
    public func setFaults(_ faults: [String: JSONValue]) async throws {
        _ = try await request("POST", "/__dev/faults", json: .object(faults))
    }

    /// Every access and refresh token the server has issued (from its state file), to search for leaks.
    public func issuedTokens() throws -> [String] {
        let path = storage + "/.devserver/tokens.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let state = try JSONValue.parse(text)
        var tokens = [String]()
        for key in ["refresh_tokens", "access_tokens"] {
            if case .array(let items)? = state[key] {
                tokens += items.compactMap { $0["token"]?.stringValue }
            }
        }
        return tokens
    }

    /// Path on disk of a file stored in `account` at `path`.
    public func storedFile(account: String, path: String) -> String {
        storage + "/" + account + path
    }

    /// Sends a request to the server and parses a JSON answer (`.null` for an empty body).
    public func request(_ method: String, _ path: String, json: JSONValue? = nil, headers: [String: String] = [:], body: Data? = nil) async throws -> JSONValue {
        let (data, status) = try await raw(method, path, json: json, headers: headers, body: body)
        guard (200..<300).contains(status) else {
            throw TestSupportError("\(method) \(path) answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
        return data.isEmpty ? .null : try JSONValue.parse(String(decoding: data, as: UTF8.self))
    }

    public func raw(_ method: String, _ path: String, json: JSONValue? = nil, headers: [String: String] = [:], body: Data? = nil) async throws -> (Data, Int) {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        if let json {
            request.httpBody = Data(json.jsonText.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let body { request.httpBody = body }
        for (key, value) in headers { request.setValue(value, forHTTPHeaderField: key) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }
}
