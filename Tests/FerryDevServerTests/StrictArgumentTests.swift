import FerryTestSupport
import Testing
@testable import FerryDevServer

/// Where Dropbox answers 400, so must the dev server: otherwise a client bug passes every test here and fails in
/// production.
@Suite("Arguments are as strict as Dropbox's", .tags(.fast))
struct StrictArgumentTests {
    @Test("raw non-ASCII in Dropbox-API-Arg is a 400; the \\uXXXX form works")
    func nonASCIIHeader() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            let raw = try await h.content("files/upload", token: token, arg: #"{"path":"/Größe.txt"}"#, body: Array("x".utf8))
            #expect(raw.status == 400)
            #expect(raw.text.contains("Dropbox-API-Arg"))
            let escaped = try await h.content("files/upload", token: token, arg: #"{"path":"/Gr\u00f6\u00dfe.txt"}"#, body: Array("x".utf8))
            #expect(escaped.status == 200)
            #expect(escaped.json["path_display"] as? String == "/Größe.txt")
            let download = try await h.download(#"{"path":"/Größe.txt"}"#, token: token)
            #expect(download.status == 400)
        }
    }

    @Test("unknown members are a 400 on every route, nested ones too", arguments: [
        ("files/upload", #"{"path":"/a.bin","mode":"add","autoname":true}"#, "autoname"),
        ("files/upload", #"{"path":"/a.bin","mode":{".tag":"add","extra":1}}"#, "extra"),
        ("files/upload_session/start", #"{"close":false,"sessionType":"sequential"}"#, "sessionType"),
        ("files/upload_session/append_v2", #"{"cursor":{"session_id":"x","offset":0,"length":3}}"#, "length"),
        ("files/upload_session/append_v2", #"{"cursor":{"session_id":"x","offset":0},"closed":true}"#, "closed"),
        ("files/upload_session/append", #"{"session_id":"x","offset":0,"content_hash":"abc"}"#, "content_hash"),
        ("files/upload_session/finish", #"{"cursor":{"session_id":"x","offset":0},"commit":{"path":"/a","mood":"add"}}"#, "mood"),
        ("files/download", #"{"path":"/a.bin","range":"0-1"}"#, "range"),
        ("files/get_thumbnail_v2", #"{"resource":{".tag":"path","path":"/a.jpg"},"quality":"high"}"#, "quality"),
        ("files/get_thumbnail_v2", #"{"resource":{".tag":"path","path":"/a.jpg","rev":"1"}}"#, "rev"),
    ])
    func unknownContentFields(route: String, arg: String, field: String) async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            let result = try await h.content(route, token: token, arg: arg)
            #expect(result.status == 400, "\(result.text)")
            #expect(result.text.contains("unknown field '\(field)'"))
        }
    }

    @Test("unknown RPC members are a 400; the optional members Dropbox defines are accepted", arguments: [
        ("files/get_metadata", #"{"path":"/a","includ_deleted":true}"#, 400),
        ("files/get_metadata", #"{"path":"/missing","include_deleted":"yes"}"#, 400),
        ("files/get_metadata", #"{"path":"/missing","include_deleted":true,"include_has_explicit_shared_members":false}"#, 409),
        ("files/list_folder", #"{"path":"","recursive":false,"bogus":1}"#, 400),
        ("files/list_folder", #"{"path":"","include_mounted_folders":true,"include_non_downloadable_files":true,"limit":5}"#, 200),
        ("files/list_folder/continue", #"{"cursor":"AAFx","limit":3}"#, 400),
        ("files/list_folder/get_latest_cursor", #"{"path":"","includeDeleted":true}"#, 400),
        ("files/create_folder_v2", #"{"path":"/new","autorename":false,"mode":"add"}"#, 400),
        ("files/upload_session/finish_batch_v2", #"{"entries":[],"async":true}"#, 400),
        ("files/upload_session/finish_batch_v2",
         #"{"entries":[{"cursor":{"session_id":"x","offset":0},"commit":{"path":"/a","autorename":false,"bogus":1}}]}"#, 400),
    ])
    func unknownRPCFields(route: String, json: String, status: Int) async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            let result = try await h.rpc(route, token: token, json)
            #expect(result.status == status, "\(result.text)")
        }
    }

    @Test("routes without an argument take no body or null; {} and an empty JSON body are 400", arguments: [
        "users/get_current_account", "users/get_space_usage", "auth/token/revoke",
    ])
    func voidArguments(route: String) async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            #expect(try await h.rpc(route, token: token, "{}").status == 400)
            #expect(try await h.rpc(route, token: token, #"{"x":1}"#).status == 400)
            #expect(try await h.rpc(route, token: token, "").status == 400, "Content-Type says JSON, the body is none")
            #expect(try await h.rpc(route, token: token, "null").status == 200)
            #expect(try await h.rpc(route, token: route == "auth/token/revoke" ? h.accessToken() : token).status == 200)
        }
    }

    @Test("an Authorization value that cannot be a bearer token is a 400; a well-formed unknown one is a 401", arguments: [
        ("Bearer two words", 400), ("Bearer quo\"te", 400), ("Bearer tok,en", 400), ("Bearer =abc", 400), ("Bearer ", 400),
        ("Basic dXNlcjpwYXNz", 400), ("Bearer sl.unknown-token_1.2~3+4/5==", 401), ("Bearer abc", 401),
    ])
    func authorizationHeader(value: String, status: Int) async throws {
        try await DevServerHarness.run { h in
            let result = try await h.request(.POST, "/2/users/get_current_account", headers: [("Authorization", value)])
            #expect(result.status == status, "\(value): \(result.text)")
        }
    }
}
