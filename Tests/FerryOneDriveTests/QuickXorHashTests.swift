import FerryOneDrive
import FerryTestSupport
import Foundation
import Testing

/// QuickXorHash against known vectors (computed with Microsoft's published reference algorithm; the same list rclone
/// and other OneDrive clients check against), fed whole and in pieces of every size.
@Suite(.tags(.fast))
struct QuickXorHashTests {
    /// (input in base64, digest in base64).
    static let vectors: [(String, String)] = [
        ("", "AAAAAAAAAAAAAAAAAAAAAAAAAAA="),
        ("Sg==", "SgAAAAAAAAAAAAAAAQAAAAAAAAA="),
        ("tbQ=", "taAFAAAAAAAAAAAAAgAAAAAAAAA="),
        ("0pZP", "0rDEEwAAAAAAAAAAAwAAAAAAAAA="),
        ("jRRDVA==", "jaDAEKgAAAAAAAAABAAAAAAAAAA="),
        ("eAV52qE=", "eChAHrQRCgAAAAAABQAAAAAAAAA="),
        ("luBZlaT6", "lgBHFipBCn0AAAAABgAAAAAAAAA="),
        ("qaApEj66lw==", "qQBFCiTgA11cAgAABwAAAAAAAAA="),
        ("/aNzzCFPS/A=", "/RjFHJgRgicsAR4ACAAAAAAAAAA="),
        ("n6Neh7p6fFgm", "nxiFFw6hCz3wAQsmCQAAAAAAAAA="),
        ("J9iPGCbfZSTNyw==", "J8DGIzBggm+UgQTNUgYAAAAAAAA="),
        ("i+UZyUGJKh+ISbk=", "iyhHBpIRhESo4AOIQ0IuAAAAAAA="),
        ("h490d57Pqz5q2rtT", "h3gEHe7giWeswgdq3MYupgAAAAA="),
        ("vPgoDjOfO6fm71RxLw==", "vMAHChwwg0/s4BTmdQcV4vACAAA="),
        ("XoJ1AsoR4fDYJrDqYs4=", "XhBEHQSgjAiEAx7YPgEs1CEGZwA="),
        ("gQaybEqS/4UlDc8e4IJm", "gDCALNigBEn8oxAlZ8AzPAAOQZg="),
        ("2fuxhBJXtpWFe8dOfdGeHw==", "O9tHLAghgSvYohKFyMMxnNCHaHg="),
        ("XBV6YKU9V7yMakZnFIxIkuU=", "HbplHsBQih5cgReMQYMRzkABRiA="),
        ("T6LYJIfDh81JrAK309H2JMJTXis=", "zBTHrspn3mEcohlJdIUAbjGNaNg="),
        (
            "ikwCorI7PKWz17EI50jZCGbV9JU2E8bXVfxNMg5zdmqSZ2NlsQPp0kqYIPjzwTg1MBtfWPg53k0h0P2naJNEVgrqpoHTfV2b3pJ4m0zYPTJmUX4Bg/lOxcnCxAYKU29Y5F0U8Quz7ZXFBEweftXxJ7RS4r6N7BzJrPsLhY7hgck=",
            "imAoFvCWlDn4yVw3/oq1PDbbm6U="
        ),
        (
            "PfxMcUd0vIW6VbHG/uj/Y0W6qEoKmyBD0nYebEKazKaKG+UaDqBEcmQjbfQeVnVLuodMoPp7P7TR1htX5n2VnkHh22xDyoJ8C/ZQKiSNqQfXvh83judf4RVr9exJCud8Uvgip6aVZTaPrJHVjQhMCp/dEnGvqg0oN5OVkM2qqAXvA0teKUDhgNM71sDBVBCGXxNOR2bpbD1iM4dnuT0ey4L+loXEHTL0fqMeUcEi2asgImnlNakwenDzz0x57aBwyq3AspCFGB1ncX4yYCr/OaCcS5OKi/00WH+wNQU3",
            "QX/YEpG0gDsmhEpCdWhsxDzsfVE="
        ),
        (
            "qwGf2ESubE5jOUHHyc94ORczFYYbc2OmEzo+hBIyzJiNwAzC8PvJqtTzwkWkSslgHFGWQZR2BV5+uYTrYT7HVwRM40vqfj0dBgeDENyTenIOL1LHkjtDKoXEnQ0mXAHoJ8PjbNC93zi5TovVRXTNzfGEs5dpWVqxUzb5lc7dwkyvOluBw482mQ4xrzYyIY1t+//OrNi1ObGXuUw2jBQOFfJVj2Y6BOyYmfB1y36eBxi3zxeG5d5NYjm2GSh6e08QMAwu3zrINcqIzLOuNIiGXBtl7DjKt7b5wqi4oFiRpZsCyx2smhSrdrtK/CkdU6nDN+34vSR/M8rZpWQdBE7a8g==",
            "WYT9JY3JIo/pEBp+tIM6Gt2nyTM="
        ),
    ]

    static func decode(_ base64: String) -> [UInt8] { Array(Data(base64Encoded: base64) ?? Data()) }

    @Test("every known vector, from the empty input to 256 bytes (past the 160-byte period)")
    func knownVectors() {
        for (input, expected) in Self.vectors {
            #expect(QuickXorHash.hash(Self.decode(input)) == expected, "\(Self.decode(input).count) bytes")
        }
    }

    @Test("fed in pieces of any size the digest is the same")
    func pieces() {
        for (input, expected) in Self.vectors {
            let bytes = Self.decode(input)
            for piece in [1, 2, 3, 7, 11, 64, 159, 160, 161] {
                var hasher = QuickXorHash()
                var offset = 0
                while offset < bytes.count {
                    hasher.update(Array(bytes[offset..<min(bytes.count, offset + piece)]))
                    offset += piece
                }
                #expect(hasher.base64() == expected, "\(bytes.count) bytes in pieces of \(piece)")
            }
        }
    }

    @Test("the digest is 20 bytes with the length in the last 8")
    func shape() {
        var hasher = QuickXorHash()
        hasher.update([UInt8](repeating: 0, count: 1000))
        let digest = hasher.digest()
        #expect(digest.count == 20)
        #expect(Array(digest[12..<20]) == [0xE8, 0x03, 0, 0, 0, 0, 0, 0], "1000 zero bytes leave only the length")
    }
}
