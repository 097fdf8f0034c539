import Foundation

/// The browser's return from an OAuth authorize page to a loopback `redirect_uri`, as a person may paste it when the
/// browser runs on another machine: a bare code, or the whole address with `code` and `state` (or `error`).
enum LoopbackRedirect {
    /// The code from what the person pasted: a bare code, or the redirected address (whose `state` must match).
    /// `service` names who refused in the error ("Google").
    static func code(from pasted: String, expectedState: String?, service: String) throws(AccountSetupError) -> String {
        let text = pasted.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("http://") || text.hasPrefix("https://") else { return text }
        if let error = parameter("error", of: text) {
            throw AccountSetupError(.rejected, "\(service) did not grant access (\(error.prefix(80)))")
        }
        guard let code = parameter("code", of: text), !code.isEmpty else {
            throw AccountSetupError(.usage, "the pasted address has no code: paste the whole address the browser was sent to")
        }
        guard parameter("state", of: text) == expectedState else {
            throw AccountSetupError(.rejected, "the pasted address belongs to another login (its state does not match): start again")
        }
        return code
    }

    /// A query parameter of `url`.
    static func parameter(_ name: String, of url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value
    }
}
