import FerryTestSupport
import Foundation
import Testing
@testable import FerryDevServer

@Suite("Uploads and downloads", .tags(.fast))
struct UploadTests {
    /// 5 MiB + 123 bytes: two content-hash blocks, the second partial.
    static let bigData: [UInt8] = {
        let count = 5 * 1024 * 1024 + 123
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count { bytes[index] = UInt8((index * 31 + 7) % 251) }
        return bytes
    }()
    /// Computed independently with Python's hashlib (per-4-MiB-block SHA-256, then SHA-256).
    static let bigDataHash = "22937b44a13a1ad50f8803a949c7203227ae0b85fe0836daba905bfac7418b0b"
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    static let data3000: [UInt8] = (0..<3000).map { (index: Int) -> UInt8 in UInt8(index % 256) }
    static let data3000Hash = "e7593ad691e13795bd384310c121a5ea2bc6374b086ab7bc1c784fe73523f946"

    @Test("upload then download round trip, with escaped non-ASCII args and content_hash")
    func roundTrip() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            // "/Photos/Été 1.bin" with \u escapes, as the SDKs send it.
            let arg = #"{"path":"/Photos/\u00c9t\u00e9 1.bin","mode":"add","autorename":false,"mute":false,"client_modified":"2026-11-21T18:00:00Z"}"#
            let uploaded = try await h.content("files/upload", token: token, arg: arg, body: Self.bigData)
            #expect(uploaded.status == 200)
            let meta = uploaded.json
            #expect(meta[".tag"] == nil, "files/upload returns FileMetadata without a tag")
            #expect(meta["name"] as? String == "Été 1.bin")
            #expect(meta["path_display"] as? String == "/Photos/Été 1.bin")
            #expect(meta["path_lower"] as? String == "/photos/été 1.bin")
            #expect(meta["size"] as? Int == Self.bigData.count)
            #expect(meta["content_hash"] as? String == Self.bigDataHash)
            #expect(meta["client_modified"] as? String == "2026-11-21T18:00:00Z")
            #expect(meta["is_downloadable"] as? Bool == true)
            #expect((meta["id"] as? String)?.hasPrefix("id:") == true)
            let rev = try #require(meta["rev"] as? String)
            #expect(rev.count >= 9 && rev.allSatisfy(\.isHexDigit))
            let serverModified = try #require(meta["server_modified"] as? String)
            #expect(serverModified.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression) != nil)

            // Case-insensitive lookup, like Dropbox.
            let downloaded = try await h.download(#"{"path":"/photos/\u00e9T\u00c9 1.BIN"}"#, token: token)
            #expect(downloaded.status == 200)
            #expect(downloaded.body == Self.bigData)
            #expect(downloaded.header("Content-Type") == "application/octet-stream")
            let result = downloaded.apiResult
            #expect(result["content_hash"] as? String == Self.bigDataHash)
            #expect(result["rev"] as? String == rev)
            #expect(downloaded.header("Dropbox-API-Result")?.allSatisfy(\.isASCII) == true)

            let byID = try await h.rpc("files/get_metadata", token: token, #"{"path":"\#(meta["id"] as? String ?? "")"}"#)
            #expect(byID.json[".tag"] as? String == "file")
            #expect(byID.json["content_hash"] as? String == Self.bigDataHash)

            let empty = try await h.upload("/empty.txt", [], token: token)
            #expect(empty.json["content_hash"] as? String == Self.emptyHash)
            #expect(empty.json["size"] as? Int == 0)

            let missing = try await h.download(#"{"path":"/nope.txt"}"#, token: token)
            #expect(missing.status == 409)
            #expect(missing.errorSummary.hasPrefix("path/not_found/"))
        }
    }

    @Test("upload session: incorrect_offset reports correct_offset; finish commits the whole file")
    func uploadSession() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            let start = try await h.content("files/upload_session/start", token: token, arg: #"{"close":false}"#, body: Array(Self.data3000[0..<1000]))
            #expect(start.status == 200)
            let session = try #require(start.json["session_id"] as? String)

            let wrong = try await h.content("files/upload_session/append_v2", token: token,
                                            arg: #"{"cursor":{"session_id":"\#(session)","offset":500},"close":false}"#, body: Array(Self.data3000[500..<1000]))
            #expect(wrong.status == 409)
            #expect(wrong.errorSummary.hasPrefix("incorrect_offset/"))
            #expect(wrong.errorTag == "incorrect_offset")
            #expect((wrong.json["error"] as? [String: Any])?["correct_offset"] as? Int == 1000)

            let append = try await h.content("files/upload_session/append_v2", token: token,
                                             arg: #"{"cursor":{"session_id":"\#(session)","offset":1000},"close":true}"#, body: Array(Self.data3000[1000..<3000]))
            #expect(append.status == 200)
            #expect(append.text == "null")

            let finish = try await h.content("files/upload_session/finish", token: token,
                                             arg: #"{"cursor":{"session_id":"\#(session)","offset":3000},"commit":{"path":"/s/file.bin","mode":"add"}}"#)
            #expect(finish.status == 200)
            #expect(finish.json["size"] as? Int == 3000)
            #expect(finish.json["content_hash"] as? String == Self.data3000Hash)

            let stats = h.server.stats()
            #expect(stats.appendOffsetsPerSession[session] == [500, 1000])
            #expect(stats.bytesReceivedPerSession[session] == 3000, "the refused chunk was never read")
            #expect(stats.sessionsStarted == 1)

            let afterFinish = try await h.content("files/upload_session/append_v2", token: token,
                                                  arg: #"{"cursor":{"session_id":"\#(session)","offset":3000}}"#, body: [1])
            #expect(afterFinish.errorTag == "closed")
            let finishAgain = try await h.content("files/upload_session/finish", token: token,
                                                  arg: #"{"cursor":{"session_id":"\#(session)","offset":3000},"commit":{"path":"/s/other.bin"}}"#)
            #expect(finishAgain.errorSummary.hasPrefix("lookup_failed/not_found/"))
            let unknown = try await h.content("files/upload_session/append_v2", token: token,
                                              arg: #"{"cursor":{"session_id":"pid_upload_session:nope","offset":0}}"#, body: [1])
            #expect(unknown.errorTag == "not_found")

            let downloaded = try await h.download(#"{"path":"/s/file.bin"}"#, token: token)
            #expect(downloaded.body == Self.data3000)
        }
    }

    @Test("finish into an occupied path: conflict, autorename, identical content, strict_conflict")
    func conflicts() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            let original = try await h.upload("/Docs/a.txt", Array("one".utf8), token: token)
            #expect(original.status == 200)

            let start = try await h.content("files/upload_session/start", token: token, arg: #"{"close":true}"#, body: Array("two".utf8))
            let session = try #require(start.json["session_id"] as? String)
            let conflict = try await h.content("files/upload_session/finish", token: token,
                                               arg: #"{"cursor":{"session_id":"\#(session)","offset":3},"commit":{"path":"/docs/A.txt","mode":"add"}}"#)
            #expect(conflict.status == 409)
            #expect(conflict.errorSummary.hasPrefix("path/conflict/file/"))
            let error = try #require(conflict.json["error"] as? [String: Any])
            #expect(error[".tag"] as? String == "path")
            let path = try #require(error["path"] as? [String: Any])
            #expect(path[".tag"] as? String == "conflict")
            #expect((path["conflict"] as? [String: Any])?[".tag"] as? String == "file")

            // The session survives a failed commit; retry with autorename.
            let renamed = try await h.content("files/upload_session/finish", token: token,
                                              arg: #"{"cursor":{"session_id":"\#(session)","offset":3},"commit":{"path":"/docs/A.txt","mode":"add","autorename":true}}"#)
            #expect(renamed.status == 200)
            // Existing folders keep their casing; the new name follows the commit path.
            #expect(renamed.json["path_display"] as? String == "/Docs/A (1).txt")

            // Identical content is not a conflict (no new rev) ...
            let same = try await h.upload("/Docs/a.txt", Array("one".utf8), token: token)
            #expect(same.status == 200)
            #expect(same.json["rev"] as? String == original.json["rev"] as? String)
            // ... unless strict_conflict.
            let strict = try await h.upload("/Docs/a.txt", Array("one".utf8), token: token, extra: #","strict_conflict":true"#)
            #expect(strict.status == 409)
            let uploadError = try #require(strict.json["error"] as? [String: Any])
            #expect(uploadError[".tag"] as? String == "path")
            #expect(((uploadError["reason"] as? [String: Any])?["conflict"] as? [String: Any])?[".tag"] as? String == "file")
            #expect((uploadError["upload_session_id"] as? String)?.isEmpty == false)

            let overwrite = try await h.upload("/Docs/a.txt", Array("three".utf8), token: token, mode: "overwrite")
            #expect(overwrite.status == 200)
            #expect(overwrite.json["id"] as? String == original.json["id"] as? String, "overwrite keeps the file id")
            #expect(overwrite.json["rev"] as? String != original.json["rev"] as? String)

            let malformed = try await h.upload("/Docs//x.txt", [1], token: token)
            #expect(malformed.status == 409)
            #expect(malformed.errorSummary.hasPrefix("path/malformed_path/"))

            #expect(h.server.stats().commitsPerPath["/docs/a.txt"] == 2)
        }
    }

    @Test("finish_batch_v2 commits closed sessions and reports per-entry failures")
    func finishBatch() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            var sessions: [String] = []
            for index in 0..<3 {
                let close = index < 2 ? "true" : "false"
                let start = try await h.content("files/upload_session/start", token: token, arg: #"{"close":\#(close)}"#, body: Array("file \(index)".utf8))
                sessions.append(try #require(start.json["session_id"] as? String))
            }
            let entries = sessions.enumerated().map { index, id in
                #"{"cursor":{"session_id":"\#(id)","offset":6},"commit":{"path":"/batch/f\#(index).txt"}}"#
            }.joined(separator: ",")
            let result = try await h.rpc("files/upload_session/finish_batch_v2", token: token, #"{"entries":[\#(entries)]}"#)
            #expect(result.status == 200)
            let items = try #require(result.json["entries"] as? [[String: Any]])
            #expect(items.count == 3)
            #expect(items[0][".tag"] as? String == "success")
            #expect(items[0]["path_display"] as? String == "/batch/f0.txt")
            #expect(items[1][".tag"] as? String == "success")
            #expect(items[2][".tag"] as? String == "failure")
            let failure = try #require(items[2]["failure"] as? [String: Any])
            #expect(failure[".tag"] as? String == "lookup_failed")
            #expect((failure["lookup_failed"] as? [String: Any])?[".tag"] as? String == "not_closed")
        }
    }
}
