import Foundation
import Hummingbird

extension Dashboard {
    /// The session cookie's name: `__Host-` prefixed with `--secure-cookies`, so only this origin over HTTPS can
    /// set it (a neighbour on another port or over plain HTTP cannot plant or shadow it).
    var sessionCookieName: String { configuration.secureCookies ? "__Host-ferry_session" : "ferry_session" }

    /// The login cookie: a random value per browser that the login form's CSRF token is bound to.
    var loginCookieName: String { configuration.secureCookies ? "__Host-ferry_csrf" : "ferry_csrf" }

    /// Every value the request carries for cookie `name`, in order: a browser sends several when another page on
    /// the same host set one of the same name with another path, and the first is not necessarily ours.
    func cookieValues(_ request: Request, _ name: String) -> [String] {
        request.headers[values: .cookie].flatMap { line in
            line.split(separator: ";").compactMap { pair -> String? in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { return nil }
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
    }

    /// A cookie of the dashboard's: HttpOnly, SameSite=Strict, Secure over HTTPS; `__Host-` cookies must have
    /// path `/`, others are scoped to the base path. `maxAge` 0 deletes it.
    func cookie(_ name: String, _ value: String, _ request: Request, maxAge: Int? = nil) -> Cookie {
        Cookie(
            name: name, value: value, maxAge: maxAge, path: configuration.secureCookies || base.isEmpty ? "/" : base,
            secure: configuration.secureCookies || Self.isHTTPS(request), httpOnly: true, sameSite: .strict)
    }
}
