import FerryTestSupport
import Foundation
import Testing
@testable import FerryDevServer

@Suite("Drive emulation: routes, queries, ranges, multipart bodies", .tags(.fast))
struct GoogleDriveParsingTests {
    @Test("Google's paths map to routes; anything else is not a Drive route")
    func routes() {
        #expect(GoogleRoute(path: "/drive/v3/files") == .files)
        #expect(GoogleRoute(path: "/drive/v3/files/abc") == .file("abc"))
        #expect(GoogleRoute(path: "/drive/v3/files/a%20b/copy") == .copy("a b"))
        #expect(GoogleRoute(path: "/drive/v3/files/abc/export") == .export("abc"))
        #expect(GoogleRoute(path: "/upload/drive/v3/files") == .upload(nil))
        #expect(GoogleRoute(path: "/upload/drive/v3/files/xyz") == .upload("xyz"))
        #expect(GoogleRoute(path: "/token") == .token)
        #expect(GoogleRoute(path: "/o/oauth2/v2/auth") == .authorize)
        for path in ["/drive/v3/files/abc/other", "/drive/v3/files//copy", "/drive/v2/files", "/upload/drive/v3/files/a/b", "/2/files/upload"] {
            #expect(GoogleRoute(path: path) == nil, "\(path)")
        }
    }

    @Test("q: terms joined by and; quoted strings with \\' and \\\\ escapes; anything else refused")
    func queries() throws {
        let filter = try GoogleQueryFilter(#"name = 'it\'s a \\ test' and 'P1' in parents and trashed = false and mimeType != 'x/y'"#)
        #expect(filter.terms == [.name(#"it's a \ test"#, equal: true), .inParents("P1"), .trashed(false), .mimeType("x/y", equal: false)])
        #expect(filter.parent == "P1")
        for bad in ["name = 'open", "name = x", "name = 'a' or name = 'b'", "name = 'a' and", "sharedWithMe", "name = 'a' and (trashed = true)", "'a' in owners"] {
            #expect(throws: GoogleAPIError.self, "\(bad)") { try GoogleQueryFilter(bad) }
        }
        #expect(throws: GoogleAPIError.self) { try GoogleQueryFilter(String(repeating: "a", count: 9000)) }
    }

    @Test("Content-Range of chunks and status queries")
    func contentRanges() {
        #expect(GoogleContentRange("bytes 0-262143/1000000") == GoogleContentRange(start: 0, end: 262_143, total: 1_000_000))
        #expect(GoogleContentRange("bytes */1000") == GoogleContentRange(start: nil, end: nil, total: 1000))
        #expect(GoogleContentRange("bytes 0-9/*") == GoogleContentRange(start: 0, end: 9, total: nil))
        #expect(GoogleContentRange("bytes 990-999/1000")?.isFinal == true)
        for bad in ["bytes 5-4/10", "bytes 0-10/10", "items 0-1/2", "bytes -1-2/3", "bytes 0-1"] {
            #expect(GoogleContentRange(bad) == nil, "\(bad)")
        }
    }

    @Test("multipart/related bodies split into their parts; malformed ones are refused")
    func multipart() throws {
        #expect(GoogleMultipartParser.boundary(of: "multipart/related; boundary=\"abc\"") == "abc")
        #expect(GoogleMultipartParser.boundary(of: "multipart/form-data; boundary=abc") == nil)
        let body = Array("--abc\r\nContent-Type: application/json\r\n\r\n{\"name\":\"x\"}\r\n--abc\r\nContent-Type: text/plain\r\n\r\nhello\r\n--abc--\r\n".utf8)
        let parts = try GoogleMultipartParser.parts(body, boundary: "abc")
        #expect(parts.count == 2)
        #expect(String(decoding: parts[0].body, as: UTF8.self) == "{\"name\":\"x\"}")
        #expect(parts[1].headers["content-type"] == "text/plain" && String(decoding: parts[1].body, as: UTF8.self) == "hello")
        // Python's email generator ends lines with a bare LF; Google takes that too.
        let lf = Array("--abc\nContent-Type: application/json\nMIME-Version: 1.0\n\n{}\n--abc\nContent-Type: a/b\n\nab\r\ncd\n--abc--\n".utf8)
        let lfParts = try GoogleMultipartParser.parts(lf, boundary: "abc")
        #expect(lfParts.count == 2 && String(decoding: lfParts[1].body, as: UTF8.self) == "ab\r\ncd" && lfParts[1].headers["content-type"] == "a/b")
        for bad in ["--abc\r\nno end", "nothing", "--abc\r\n\r\nx\r\n--ab"] {
            #expect(throws: GoogleAPIError.self, "\(bad)") { try GoogleMultipartParser.parts(Array(bad.utf8), boundary: "abc") }
        }
    }

    @Test("a bare-LF body keeps a CR that ends its content, and its part headers are read line by line")
    func bareLineFeeds() throws {
        let body = Array("--b\nContent-Type: application/json\n\n{}\n--b\nContent-Type: image/jpeg\nMIME-Version: 1.0\n\nAB\r\n--b--\n".utf8)
        let parts = try GoogleMultipartParser.parts(body, boundary: "b")
        #expect(parts.count == 2)
        #expect(Array(parts[1].body) == Array("AB\r".utf8), "the CR is the file's last byte")
        #expect(parts[1].headers["content-type"] == "image/jpeg" && parts[1].headers["mime-version"] == "1.0")
        let crlf = Array("--b\r\nContent-Type: image/jpeg\r\n\r\nAB\r\n--b--\r\n".utf8)
        #expect(try Array(GoogleMultipartParser.parts(crlf, boundary: "b")[0].body) == Array("AB".utf8))
    }
}
