import Crypto

/// Secret comparison whose time depends on neither the position of the first difference nor the lengths.
enum ConstantTime {
    static func equals(_ a: String, _ b: String) -> Bool {
        // Hashing first gives equal-length inputs, so the loop below always runs 32 rounds.
        let x = Array(SHA256.hash(data: Array(a.utf8)))
        let y = Array(SHA256.hash(data: Array(b.utf8)))
        var difference: UInt8 = 0
        for index in 0..<x.count { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// 32 random bytes as hex, for session and CSRF tokens.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }
}
