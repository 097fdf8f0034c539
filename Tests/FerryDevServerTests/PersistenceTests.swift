import Foundation
import Testing
@testable import FerryDevServer

@Suite("Restarts")
struct PersistenceTests {
    @Test("a restarted server keeps accounts, refresh tokens and files")
    func restart() async throws {
        let storage = DevServerHarness.temporaryStorage()
        defer { try? FileManager.default.removeItem(atPath: storage) }
        let data = Array("kept across restarts".utf8)
        var refresh = ""
        var before: [String: Any] = [:]
        try await DevServerHarness.run(storage: storage) { h in
            refresh = h.server.issueRefreshToken(account: "frank")
            let token = try await h.accessToken(account: "frank")
            before = try await h.upload("/Keep/x.txt", data, token: token).json
            #expect(before["size"] as? Int == data.count)
        }
        try await DevServerHarness.run(storage: storage) { h in
            let exchanged = try await h.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey)])
            #expect(exchanged.status == 200)
            let token = try #require(exchanged.json["access_token"] as? String)
            let meta = try await h.rpc("files/get_metadata", token: token, #"{"path":"/keep/X.TXT"}"#)
            #expect(meta.status == 200)
            #expect(meta.json["id"] as? String == before["id"] as? String)
            #expect(meta.json["content_hash"] as? String == before["content_hash"] as? String)
            #expect(meta.json["path_display"] as? String == "/Keep/x.txt")
            #expect(try await h.download(#"{"path":"/Keep/x.txt"}"#, token: token).body == data)
        }
    }
}
