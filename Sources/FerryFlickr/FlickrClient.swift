import AsyncHTTPClient
import FerryCore
import Foundation
import Logging
import NIOCore

/// Calls Flickr's REST API for public photostreams (an API key, no OAuth).
///
/// Answers are requested as plain JSON (`format=json&nojsoncallback=1`); a `jsonFlickrApi(…)` wrapper is
/// unwrapped anyway. Flickr reports API errors as `stat: fail` with HTTP 200, which become `FlickrError`s
/// with Flickr's code. Logs name the method and page, never the API key or the request URL.
public struct FlickrClient: Sendable {
    let httpClient: HTTPClient
    public let endpoints: FlickrEndpoints
    let logger: Logger
    let requestTimeout: TimeAmount
    /// Largest answer read (a page of 500 photos with extras is well under 1 MiB).
    static let maxAnswerBytes = 16 << 20

    public init(httpClient: HTTPClient, endpoints: FlickrEndpoints = .production, logger: Logger, requestTimeout: Duration = .seconds(60)) {
        self.httpClient = httpClient
        self.endpoints = endpoints
        self.logger = logger
        let parts = requestTimeout.components
        self.requestTimeout = .nanoseconds(parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
    }

    /// One page of `flickr.people.getPublicPhotos` (newest first). `perPage` is at most 500 on Flickr.
    public func publicPhotos(
        userID: String, page: Int, perPage: Int, extras: [String] = ["date_upload", "owner_name"], apiKey: String
    ) async throws(FlickrError) -> FlickrPhotoPage {
        var parameters = [
            ("method", "flickr.people.getPublicPhotos"), ("api_key", apiKey), ("user_id", userID),
            ("page", String(page)), ("per_page", String(perPage)), ("format", "json"), ("nojsoncallback", "1"),
        ]
        if !extras.isEmpty { parameters.append(("extras", extras.joined(separator: ","))) }
        let json = try await call("flickr.people.getPublicPhotos", parameters: parameters, secrets: [apiKey])
        guard let photos = json["photos"] else {
            throw FlickrError(code: .invalidResponse, message: "answer without a photos member")
        }
        return try FlickrPhotoPage(json: photos)
    }

    /// `flickr.test.echo`: answers when the endpoint is Flickr's REST API and accepts `apiKey` (an invalid key is
    /// `invalidAPIKey`), which is how `ferry account add` checks a key before storing it.
    public func echo(apiKey: String) async throws(FlickrError) {
        let parameters = [("method", "flickr.test.echo"), ("api_key", apiKey), ("format", "json"), ("nojsoncallback", "1")]
        _ = try await call("flickr.test.echo", parameters: parameters, secrets: [apiKey])
    }

    /// `{photos}/{server}/{id}_{secret}[_{size}].jpg`; no size is Flickr's medium 500.
    public func photoURL(_ photo: FlickrPhotoInfo, size: String?) -> String {
        Self.photoURL(photo, size: size, base: endpoints.photos)
    }

    /// The photo URL under `base` (see `photoURL(_:size:)`).
    public static func photoURL(_ photo: FlickrPhotoInfo, size: String?, base: String) -> String {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        let suffix = size.map { $0.isEmpty ? "" : "_" + $0 } ?? ""
        return "\(trimmed)/\(percentEncoded(photo.server))/\(percentEncoded(photo.id))_\(percentEncoded(photo.secret))\(suffix).jpg"
    }

    /// A GET of the REST endpoint, answered with the parsed `stat: ok` document.
    func call(_ method: String, parameters: [(String, String)], secrets: [String]) async throws(FlickrError) -> JSONValue {
        let query = parameters.map { "\(Self.percentEncoded($0.0))=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
        let separator = endpoints.rest.contains("?") ? "&" : "?"
        var request = HTTPClientRequest(url: endpoints.rest + separator + query)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        let page = parameters.first(where: { $0.0 == "page" })?.1 ?? ""
        logger.debug("flickr call", metadata: ["method": "\(method)", "page": "\(page)"])

        let status: Int
        let retryAfter: String?
        let body: ByteBuffer
        do {
            let response = try await httpClient.execute(request, timeout: requestTimeout, logger: logger)
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "Retry-After")
            body = try await response.body.collect(upTo: Self.maxAnswerBytes)
        } catch let error as HTTPClientError {
            throw Self.transportError(error, secrets: secrets)
        } catch {
            throw FlickrError(code: .transport, message: "\(method): \(Self.redacted(String(describing: type(of: error)), secrets: secrets))")
        }
        switch status {
        case 200..<300:
            break
        case 429:
            let wait = HTTPRetryAfter.seconds(retryAfter)
            throw FlickrError(code: .rateLimited, message: "\(method): rate limited", httpStatus: status, retryAfter: wait)
        case 500...599:
            throw FlickrError(code: .serverError, message: "\(method): server error", httpStatus: status)
        default:
            throw FlickrError(code: .httpStatus, message: "\(method): unexpected HTTP status", httpStatus: status)
        }
        let json = try Self.parse(String(buffer: body), method: method)
        switch json["stat"]?.stringValue {
        case "ok":
            return json
        case "fail":
            let code = json["code"]?.flickrInt.map { Int($0) }
            let message = Self.redacted(json["message"]?.stringValue ?? "no message", secrets: secrets)
            switch code {
            case 100: throw FlickrError(code: .invalidAPIKey, flickrCode: code, message: message)
            case 1, 2: throw FlickrError(code: .userNotFound, flickrCode: code, message: message)
            case 105, 106: throw FlickrError(code: .serviceUnavailable, flickrCode: code, message: message)
            default: throw FlickrError(code: .apiError, flickrCode: code, message: message)
            }
        default:
            throw FlickrError(code: .invalidResponse, message: "\(method): answer without stat ok or fail")
        }
    }

    /// Parses the answer, unwrapping `jsonFlickrApi(…)` (what Flickr sends when `nojsoncallback` is ignored).
    static func parse(_ text: String, method: String) throws(FlickrError) -> JSONValue {
        var body = Substring(text).drop(while: { $0.isWhitespace })
        while body.last?.isWhitespace == true { body = body.dropLast() }
        if body.hasPrefix("jsonFlickrApi(") {
            body = body.dropFirst("jsonFlickrApi(".count)
            if body.hasSuffix(";") { body = body.dropLast() }
            guard body.hasSuffix(")") else {
                throw FlickrError(code: .invalidResponse, message: "\(method): unterminated jsonFlickrApi wrapper")
            }
            body = body.dropLast()
        }
        do {
            return try JSONValue.parse(String(body))
        } catch {
            throw FlickrError(code: .invalidResponse, message: "\(method): the answer is not JSON (\(error))")
        }
    }

    static func transportError(_ error: HTTPClientError, secrets: [String]) -> FlickrError {
        let timeouts: [HTTPClientError] = [.readTimeout, .connectTimeout, .deadlineExceeded, .writeTimeout]
        let code: FlickrError.Code = timeouts.contains(error) ? .timeout : .transport
        return FlickrError(code: code, message: redacted(String(describing: error), secrets: secrets))
    }

    /// Removes secrets from text that may echo a request (error descriptions, Flickr messages).
    static func redacted(_ text: String, secrets: [String]) -> String {
        var text = text
        for secret in secrets where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: "<redacted>")
        }
        return text
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
            }
        }
        return out
    }
}
