import Foundation

extension SealedAccountRow {
    /// The sealed columns a row may hold (`<field>_sealed`), in a fixed order.
    static let sealedFields = [AccountSecrets.field, "app_secret", "refresh_token", "access_token"]

    /// The row's sealed values (base64, as selected), by field; absent fields are left out.
    var sealedValues: [(field: String, base64: String)] {
        zip(Self.sealedFields, [secrets, appSecret, refreshToken, accessToken]).compactMap { field, value in
            value.map { (field, $0) }
        }
    }

    /// Every sealed value opened with `box`, by field, or the first refusal (which never carries a secret).
    func openAll(_ box: SecretBox) throws(SecretBoxError) -> [String: String] {
        var opened = [String: String]()
        for (field, base64) in sealedValues {
            // encode(…, 'base64') wraps lines every 76 characters.
            guard let data = Data(base64Encoded: base64.filter { !$0.isWhitespace }) else { throw SecretBoxError(.damaged) }
            opened[field] = try box.open(Array(data), context: AccountStore.sealContext(name, field), keyID: keyID)
        }
        return opened
    }
}
