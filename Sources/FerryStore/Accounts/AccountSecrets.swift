import FerryCore

/// How an account kind's secrets are sealed: one JSON object of the kind's own fields (`{"app_secret": …}`,
/// `{"access_key_id": …, "secret_access_key": …}`), sealed whole in `ferry.accounts.secrets_sealed`.
enum AccountSecrets {
    /// The sealing context's field name (`ferry.accounts/NAME/secrets`).
    static let field = "secrets"

    /// The JSON text that is sealed.
    static func text(_ secrets: [String: String]) -> String {
        JSONValue.object(secrets.mapValues(JSONValue.string)).jsonText
    }

    /// The secrets from opened JSON text; `nil` when it is not an object of strings (damage).
    static func parse(_ text: String) -> [String: String]? {
        guard let object = (try? JSONValue.parse(text))?.objectValue else { return nil }
        var secrets = [String: String]()
        for (name, value) in object {
            guard let string = value.stringValue else { return nil }
            secrets[name] = string
        }
        return secrets
    }
}
