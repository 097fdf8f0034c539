import FerryTestSupport
import NIOHTTP1
import Testing
@testable import FerryS3

@Suite("S3 error mapping", .tags(.fast))
struct ErrorMappingTests {
    static func errorBody(_ code: String, _ message: String, extra: String = "") -> [UInt8] {
        Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <Error><Code>\(code)</Code><Message>\(message)</Message>\(extra)<RequestId>4442587FB7D0A2F9</RequestId><HostId>h</HostId></Error>
        """.utf8)
    }

    @Test("S3 error codes map to their cases", arguments: [
        ("AccessDenied", 403, S3Error.Code.accessDenied), ("NoSuchBucket", 404, .noSuchBucket), ("NoSuchKey", 404, .noSuchKey),
        ("NoSuchUpload", 404, .noSuchUpload), ("InvalidPart", 400, .invalidPart), ("InvalidPartOrder", 400, .invalidPartOrder),
        ("EntityTooSmall", 400, .entityTooSmall), ("PreconditionFailed", 412, .preconditionFailed), ("InvalidRange", 416, .invalidRange),
        ("SlowDown", 503, .slowDown), ("InternalError", 500, .serverError), ("ServiceUnavailable", 503, .serverError),
        ("BadDigest", 400, .badDigest), ("XAmzContentSHA256Mismatch", 400, .badDigest),
        ("SignatureDoesNotMatch", 403, .signatureDoesNotMatch), ("InvalidAccessKeyId", 403, .invalidAccessKeyId),
        ("ExpiredToken", 400, .expiredToken), ("InvalidBucketName", 400, .other("InvalidBucketName")),
        ("SomethingNew", 502, .serverError), ("Whatever", 429, .slowDown),
    ])
    func codes(_ s3Code: String, _ status: Int, _ expected: S3Error.Code) {
        let error = S3Error.fromResponse(
            operation: "PutObject", status: status, headers: HTTPHeaders(), body: Self.errorBody(s3Code, "The message."),
            notFound: .noSuchKey, secrets: [])
        #expect(error.code == expected)
        #expect(error.s3Code == s3Code)
        #expect(error.message == "The message.")
        #expect(error.requestID == "4442587FB7D0A2F9")
        #expect(error.httpStatus == status)
        #expect(error.description.contains("PutObject"))
        #expect(error.description.contains(s3Code))
        #expect(error.description.contains("The message."))
    }

    @Test("bodiless answers (HEAD) are mapped by status", arguments: [
        (403, S3Error.Code.accessDenied), (404, .noSuchBucket), (412, .preconditionFailed), (416, .invalidRange),
        (429, .slowDown), (503, .slowDown), (500, .serverError), (301, .other("PermanentRedirect")), (400, .other("BadRequest")),
    ])
    func bodiless(_ status: Int, _ expected: S3Error.Code) {
        var headers = HTTPHeaders()
        headers.add(name: "x-amz-request-id", value: "REQ1")
        let error = S3Error.fromResponse(operation: "HeadBucket", status: status, headers: headers, body: [], notFound: .noSuchBucket, secrets: [])
        #expect(error.code == expected)
        #expect(error.s3Code == nil)
        #expect(error.requestID == "REQ1")
    }

    @Test("dispositions: retry, back off, or fail for good")
    func dispositions() {
        func error(_ code: S3Error.Code, status: Int? = nil, retryAfter: Double? = nil) -> S3Error {
            S3Error(code: code, operation: "UploadPart", httpStatus: status, retryAfter: retryAfter)
        }
        #expect(error(.slowDown, retryAfter: 3).disposition == .rateLimited(retryAfter: 3))
        #expect(error(.slowDown).disposition == .rateLimited(retryAfter: nil))
        for code: S3Error.Code in [.serverError, .transport, .timeout, .badDigest, .invalidResponse, .other("RequestTimeout")] {
            #expect(error(code).disposition == .retryable, "\(code)")
        }
        #expect(error(.other("Weird"), status: 501).disposition == .retryable)
        for code: S3Error.Code in [.accessDenied, .noSuchBucket, .noSuchKey, .noSuchUpload, .invalidPart, .invalidPartOrder,
                                   .entityTooSmall, .preconditionFailed, .invalidRange, .signatureDoesNotMatch,
                                   .invalidAccessKeyId, .expiredToken, .invalidArgument, .other("InvalidBucketName")] {
            #expect(error(code, status: 400).disposition == .permanent, "\(code)")
            #expect(!error(code, status: 400).isRetryable)
        }
    }

    @Test("Retry-After is read in both forms")
    func retryAfter() {
        var headers = HTTPHeaders()
        headers.add(name: "Retry-After", value: "7")
        let error = S3Error.fromResponse(operation: "GetObject", status: 503, headers: headers, body: Self.errorBody("SlowDown", "Reduce your request rate."),
                                         notFound: .noSuchKey, secrets: [])
        #expect(error.disposition == .rateLimited(retryAfter: 7))
    }

    @Test("a SignatureDoesNotMatch answer never carries the echoed string to sign, canonical request or secrets")
    func signatureEcho() {
        let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        let body = Self.errorBody(
            "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Key \(secret)",
            extra: "<AWSAccessKeyId>AKIAEXAMPLE</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256\n20130524T000000Z</StringToSign>"
                + "<SignatureProvided>f0e8bdb87c964420</SignatureProvided><CanonicalRequest>GET /x</CanonicalRequest>")
        let error = S3Error.fromResponse(operation: "GetObject", status: 403, headers: HTTPHeaders(), body: body, notFound: .noSuchKey,
                                         secrets: [secret, "f0e8bdb87c964420"])
        #expect(error.code == .signatureDoesNotMatch)
        #expect(error.disposition == .permanent)
        for text in [error.description, String(reflecting: error)] {
            #expect(!text.contains(secret))
            #expect(!text.contains("f0e8bdb87c964420"))
            #expect(!text.contains("AWS4-HMAC-SHA256"))
            #expect(!text.contains("CanonicalRequest"))
        }
        #expect(error.description.contains("[REDACTED]"))
    }

    @Test("a body that is not S3's XML keeps a short excerpt and maps by status")
    func foreignBody() {
        let error = S3Error.fromResponse(
            operation: "PutObject", status: 502, headers: HTTPHeaders(), body: Array(("<html>Bad Gateway" + String(repeating: "x", count: 2000)).utf8),
            notFound: .noSuchKey, secrets: [])
        #expect(error.code == .serverError)
        #expect(error.message.count <= S3Error.messageLimit + 1)
    }

    @Test("the XML parser reads S3 documents: namespaces, entities, CDATA, self-closing elements")
    func xml() throws {
        let document = try S3XMLElement.parse(Array("""
        \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
        <!-- listing -->
        <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>
          <Contents><Key>a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#233;&#x1F600;</Key><Size>5</Size><ETag>&quot;abc&quot;</ETag></Contents>
          <Contents><Key><![CDATA[x<y]]></Key><Size>0</Size><Owner/></Contents>
          <s3:IsTruncated xmlns:s3="urn:x">false</s3:IsTruncated>
        </ListBucketResult>
        """.utf8))
        #expect(document.name == "ListBucketResult")
        let contents = document.children("Contents")
        #expect(contents.count == 2)
        #expect(contents[0].text(of: "Key") == "a & b <c> \"d\" 'e' é😀")
        #expect(contents[0].text(of: "ETag") == "\"abc\"")
        #expect(contents[1].text(of: "Key") == "x<y")
        #expect(contents[1].child("Owner")?.children.isEmpty == true)
        #expect(document.text(of: "IsTruncated") == "false")
    }

    @Test("the XML parser refuses malformed documents and DOCTYPEs", arguments: [
        "", "<a>", "<a></b>", "<a>&bogus;</a>", "<a></a><b></b>", "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>", "text",
        String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100),
    ])
    func malformedXML(_ text: String) {
        #expect(throws: S3XMLParseError.self) { try S3XMLElement.parse(Array(text.utf8)) }
    }

    @Test("Content-Range headers", arguments: [
        ("bytes 6-10/11", S3ContentRange(first: 6, last: 10, completeLength: 11)), ("bytes 0-0/*", S3ContentRange(first: 0, last: 0, completeLength: nil)),
        ("bytes 5-4/11", nil), ("bytes 0-10/10", nil), ("items 0-1/2", nil), ("bytes x-1/2", nil),
    ])
    func contentRange(_ header: String, _ expected: S3ContentRange?) {
        #expect(S3ContentRange(headerValue: header) == expected)
    }

    @Test("base64 for Content-MD5")
    func base64() {
        #expect(Base64.encode([]) == "")
        #expect(Base64.encode(Array("f".utf8)) == "Zg==")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.encode([0xFF, 0xFE, 0xFD, 0x00]) == "//79AA==")
    }

    @Test("endpoints and addressing")
    func endpoints() throws {
        let aws = S3Configuration(region: "eu-central-1")
        #expect(aws.endpoint.url == "https://s3.eu-central-1.amazonaws.com")
        #expect(aws.addressingStyle == .virtualHosted)
        #expect(aws.usesVirtualHost(for: "my-bucket"))
        #expect(!aws.usesVirtualHost(for: "my.bucket"))
        #expect(!aws.usesVirtualHost(for: "My_Bucket"))
        let moto = S3Configuration(region: "us-east-1", endpoint: try S3Endpoint(url: "http://127.0.0.1:5000/"))
        #expect(moto.addressingStyle == .path)
        let forcedVirtual = S3Configuration(region: "us-east-1", endpoint: try S3Endpoint(url: "http://127.0.0.1:5000"), addressingStyle: .virtualHosted)
        #expect(!forcedVirtual.usesVirtualHost(for: "bucket"))
        let minio = S3Configuration(region: "us-east-1", endpoint: try S3Endpoint(url: "http://minio.local:9000"), addressingStyle: .virtualHosted)
        #expect(minio.usesVirtualHost(for: "my.bucket"))
        #expect(moto.endpoint.url == "http://127.0.0.1:5000")
        #expect(try S3Endpoint(url: "https://minio.example:443").url == "https://minio.example")
        #expect(try S3Endpoint(url: "http://[::1]:9000").url == "http://[::1]:9000")
        for bad in ["ftp://x", "http://", "http://h/path", "http://u:p@h", "not a url", "http://h?x=1"] {
            #expect(throws: S3Error.self, "\(bad)") { try S3Endpoint(url: bad) }
        }
    }
}
