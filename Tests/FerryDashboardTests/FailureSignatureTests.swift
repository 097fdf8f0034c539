import FerryTestSupport
import Testing

@testable import FerryDashboard

/// The failed page groups by `FailureSignature`: what differs between jobs failing for one reason is replaced by
/// placeholders, what tells reasons apart is kept.
@Suite("Failure signature", .tags(.fast))
struct FailureSignatureTests {
    static let cases: [(error: String?, code: String, message: String)] = [
        ("http_not_found: GET https://example.com/photos/123.jpg answered 404",
         "http_not_found", "GET <url> answered 404"),
        ("http_not_found: GET https://cdn.example.org/a/b?x=1&y=2 answered 404 (attempts exhausted: 3 of 3)",
         "http_not_found", "GET <url> answered 404 (attempts exhausted: 3 of 3)"),
        ("destination_exists: /srv/in/photo-17.jpg already exists with different content",
         "destination_exists", "<path> already exists with different content"),
        ("unsafe_path: the source (/etc/passwd) is outside the roots", "unsafe_path", "the source (<path>) is outside the roots"),
        ("bad_spec: job 0190a8c4-5f3e-7b2a-9c1d-2e3f4a5b6c7d has no source", "bad_spec", "job <id> has no source"),
        ("size_mismatch: expected 1048576 bytes, got 524288", "size_mismatch", "expected <n> bytes, got <n>"),
        ("checksum_mismatch: sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 differs",
         "checksum_mismatch", "sha256 <hex> differs"),
        ("account_unusable: account 'photos-2' needs a login", "account_unusable", "account '<name>' needs a login"),
        ("dropbox_route_error: path \"Camera Uploads/IMG 1.jpg\" not found", "dropbox_route_error", "path \"<name>\" not found"),
        ("disk full", "", "disk full"),
        ("Error: something odd: here", "", "Error: something odd: here"),
        ("io_error: can't open   file ~/x.bin", "io_error", "can't open file <path>"),
        ("http_status: s3://bucket/key answered 403", "http_status", "<url> answered 403"),
        (nil, "", "(no error recorded)"),
    ]

    @Test("each message normalizes to its code and placeholder message", arguments: Self.cases.indices)
    func normalizes(_ index: Int) {
        let item = Self.cases[index]
        let signature = FailureSignature(error: item.error)
        #expect(signature.code == item.code, "\(item.error ?? "nil")")
        #expect(signature.message == item.message, "\(item.error ?? "nil")")
    }

    @Test("thirty 404s on different URLs are one group; another code or status is another; ids are stable hex")
    func groupsAndIDs() {
        let urls = (0..<30).map { "http_not_found: GET https://example.com/photos/\($0)-\(Int.random(in: 100_000...999_999)).jpg answered 404" }
        let signatures = Set(urls.map { FailureSignature(error: $0) })
        #expect(signatures.count == 1)
        #expect(FailureSignature(error: "http_status: GET https://example.com/a answered 403")
                != FailureSignature(error: "http_status: GET https://example.com/a answered 500"))
        let id = FailureSignature(error: urls[0]).id
        #expect(id.count == 16 && id.allSatisfy(\.isHexDigit) && id == FailureSignature(error: urls[1]).id)
        let long = FailureSignature(error: "internal: " + String(repeating: "word ", count: 200))
        #expect(long.message.count <= FailureSignature.maxMessageLength + 1)
    }
}
