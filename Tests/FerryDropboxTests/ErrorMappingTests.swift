import FerryCore
import FerryTestSupport
import NIOHTTP1
import Testing
@testable import FerryDropbox

@Suite("Error mapping", .tags(.fast))
struct ErrorMappingTests {
    private func map(_ status: Int, _ body: String, headers: [(String, String)] = [], oauth: Bool = false, secrets: [String] = []) -> DropboxError {
        DropboxError.fromResponse(status: status, headers: HTTPHeaders(headers), body: Array(body.utf8), oauth: oauth, secrets: secrets)
    }

    @Test("401 tags select the auth code")
    func auth() {
        #expect(map(401, #"{"error_summary":"expired_access_token/..","error":{".tag":"expired_access_token"}}"#).code == .expiredAccessToken)
        #expect(map(401, #"{"error_summary":"invalid_access_token/...","error":{".tag":"invalid_access_token"}}"#).code == .invalidAccessToken)
        let scope = map(401, #"{"error_summary":"missing_scope/.","error":{".tag":"missing_scope","required_scope":"files.content.write"}}"#)
        #expect(scope.code == .authError)
        #expect(scope.tags == ["missing_scope"])
        #expect(map(401, "Unauthorized").code == .authError)
        #expect(map(403, #"{"error_summary":"team_access_denied/..","error":{".tag":"team_access_denied"}}"#).code == .accessError)
    }

    @Test("429: body retry_after wins over Retry-After, which is used alone for text bodies")
    func rateLimit() {
        let both = map(429, #"{"error_summary":"too_many_requests/..","error":{"reason":{".tag":"too_many_requests"},"retry_after":15}}"#,
                       headers: [("Retry-After", "300")])
        #expect(both.code == .rateLimited)
        #expect(both.retryAfter == 15)
        #expect(both.tags == ["too_many_requests"])
        let header = map(429, "Too Many Requests", headers: [("Retry-After", " 300 ")])
        #expect(header.retryAfter == 300)
        #expect(header.summary == "Too Many Requests")
        #expect(map(429, "slow down").retryAfter == nil)
        let writes = map(429, #"{"error":{"reason":{".tag":"too_many_write_operations"},"retry_after":1}}"#)
        #expect(writes.code == .rateLimited)
        #expect(writes.tags == ["too_many_write_operations"])
        #expect(writes.retryAfter == 1)
    }

    @Test("409 tag paths follow nested unions and struct members")
    func routeErrors() {
        let offset = map(409, #"{"error_summary":"lookup_failed/incorrect_offset/..","error":{".tag":"lookup_failed","lookup_failed":{".tag":"incorrect_offset","correct_offset":4194304}}}"#)
        #expect(offset.code == .pathError)
        #expect(offset.tags == ["lookup_failed", "incorrect_offset"])
        #expect(offset.correctOffset == 4_194_304)
        #expect(offset.tag("lookup_failed", "incorrect_offset"))
        #expect(!offset.tag("path"))
        #expect(offset.summary == "lookup_failed/incorrect_offset/..")

        let uploadConflict = map(409, #"{"error_summary":"path/conflict/file/...","error":{".tag":"path","reason":{".tag":"conflict","conflict":{".tag":"file"}},"upload_session_id":"pid_x"}}"#)
        #expect(uploadConflict.tags == ["path", "conflict", "file"])

        let contention = map(409, #"{"error_summary":"too_many_write_operations/","error":{".tag":"too_many_write_operations"}}"#,
                             headers: [("Retry-After", "2")])
        #expect(contention.code == .tooManyWriteOperations)
        #expect(contention.retryAfter == 2)
        #expect(contention.isRetryable)
        #expect(map(409, #"{"error":{".tag":"path","path":{".tag":"too_many_write_operations"}}}"#).code == .tooManyWriteOperations)
        #expect(map(409, #"{"error":{".tag":"incorrect_offset","correct_offset":7}}"#).correctOffset == 7)
        #expect(map(409, "not json").code == .invalidResponse)
    }

    @Test("400 text is badRequest, truncated; 5xx serverError; OAuth JSON errors")
    func otherStatuses() {
        let long = String(repeating: "x", count: 1000)
        let bad = map(400, "Error in call to API function \"files/upload\": " + long)
        #expect(bad.code == .badRequest)
        #expect(!bad.isRetryable)
        #expect(bad.summary.count <= DropboxError.summaryLimit + 1)
        #expect(bad.description.count < 400)
        #expect(map(503, "Service Unavailable").code == .serverError)
        #expect(map(500, "<html>oops</html>").isRetryable)
        #expect(map(404, "Unknown API function").code == .badRequest)
        #expect(map(400, #"{"error":"invalid_grant","error_description":"refresh token is invalid or revoked"}"#, oauth: true).code == .invalidGrant)
        #expect(map(401, #"{"error":"invalid_client","error_description":"Invalid client_id or client_secret"}"#, oauth: true).code == .invalidClient)
        let request = map(400, #"{"error":"unsupported_grant_type","error_description":"nope"}"#, oauth: true)
        #expect(request.code == .badRequest)
        #expect(request.tags == ["unsupported_grant_type"])
        #expect(map(400, "plain text", oauth: true).code == .badRequest)
    }

    @Test("RPC success content types are checked leniently")
    func contentTypes() {
        #expect(DropboxClient.isJSONContentType("application/json"))
        #expect(DropboxClient.isJSONContentType("Application/JSON; charset=utf-8"))
        #expect(!DropboxClient.isJSONContentType("text/plain"))
        #expect(!DropboxClient.isJSONContentType(""))
        #expect(DropboxClient.contentRangeStart("bytes 60-99/100") == 60)
        #expect(DropboxClient.contentRangeStart("bytes */100") == nil)
    }
}
